/**
 * Freshness headers (docs/api-conventions.md, "Freshness"): every successful /api/v1 answer names
 * the latest block of the stored data it was answered from, `Quarry-Block-Height` and
 * `Quarry-Block-Hash` for the request's chain, or `Quarry-Pow-Block-*` and `Quarry-Pos-Block-*` on
 * a route without one.
 *
 * The tips are read in the same statement as the database snapshot the snapshot cache files an
 * answer under (plugins/snapshot-cache.ts calls `readStoreState`), so one statement sees one
 * committed state: a kept answer and its tips belong to the same snapshot, and a repeated answer
 * names the block it was computed at, never a later one. Requests the cache does not handle (the
 * routes that read the clock, CSV exports, or every route when the cache is off) run the same
 * statement before their handler. A block committed while an answer is computed
 * may be in the answer, as the snapshot cache also allows; the header never names a block the
 * answer was computed before. One read serves the requests of the next QUARRY_FRESHNESS_MS
 * (`sharedStoreStateReader`): a block is in every answer to a request that arrives that long after
 * its commit, and requests under load do not each wait for a round trip to the store.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import sql from 'sql-template-tag';
import { CHAINS, isChainId, type ChainId } from '../../chain/chains.ts';
import { DEFAULT_NETWORK, type ChainNetwork } from '../../chain/network.ts';
import { chainNetworksFromSettings, CHAIN_NETWORK_KEYS } from '../../store/chain-network.ts';
import { withoutDeadline, type Db } from '../../store/store.ts';

export interface ChainTip {
  height: string;
  hash: string;
}

/**
 * What one read of the store says: its snapshot and each chain's latest block. The snapshot is
 * pg_current_snapshot() on a primary (and PGlite). On a standby it is the position its WAL replay
 * has reached (pg_last_wal_replay_lsn()): a standby's pg_current_snapshot() lists no transactions
 * in progress, so a commit replayed behind its xmax would leave it unchanged while the data moved.
 * The replay position moves with every record replayed, a commit included, so an answer kept under
 * it is never served after replay changed what the queries see (it is also dropped after replay of
 * records that change no data, a cost of a few recomputations, never a stale answer).
 */
export interface StoreState {
  snapshot: string;
  tips: Record<ChainId, ChainTip | null>;
  /** Each chain's network facts (slot time, address width) as the indexers recorded them, in the same snapshot. */
  networks: Record<ChainId, ChainNetwork>;
}

const states = new WeakMap<FastifyRequest, StoreState>();

/** The statement that reads the snapshot and the chains' tips: one snapshot of the data. */
async function queryStoreState(db: Db): Promise<StoreState> {
  const [row] = await db.query<{ s: string; pow_height: string | number | null; pow_hash: string | null; pos_height: string | number | null; pos_hash: string | null; network: string | null }>(
    'api.snapshot',
    sql`SELECT CASE WHEN pg_is_in_recovery() THEN 'replayed ' || pg_last_wal_replay_lsn()::text ELSE pg_current_snapshot()::text END AS s,
               pow.height::text AS pow_height, pow.hash AS pow_hash,
               pos.height::text AS pos_height, pos.hash AS pos_hash,
               (SELECT json_agg(json_build_object('chain', chain, 'key', key, 'value', value))::text FROM chain_settings
                 WHERE chain IN (${'pow'}, ${'pos'}) AND key = ANY(${CHAIN_NETWORK_KEYS}::text[])) AS network
          FROM (SELECT 1) AS one
          LEFT JOIN LATERAL (SELECT height, hash FROM blocks WHERE chain = ${'pow'} ORDER BY height DESC LIMIT 1) AS pow ON true
          LEFT JOIN LATERAL (SELECT height, hash FROM blocks WHERE chain = ${'pos'} ORDER BY height DESC LIMIT 1) AS pos ON true`,
    { reusePlan: true }, // two key lookups
  );
  const tip = (height: string | number | null, hash: string | null): ChainTip | null => (height == null || hash == null ? null : { height: String(height), hash });
  const networks = chainNetworksFromSettings(row!.network === null ? [] : (JSON.parse(row!.network) as { chain: string; key: string; value: string }[]));
  return { snapshot: row!.s, tips: { pow: tip(row!.pow_height, row!.pow_hash), pos: tip(row!.pos_height, row!.pos_hash) }, networks };
}

/**
 * The store's state for a request arriving now: a read that started at most `maxAgeMs` before it,
 * else the next read. Every request that comes while a read is under way shares one: a request
 * takes the read in flight only if it started within `maxAgeMs`; otherwise it waits for the next,
 * which starts when that one returns and serves every request that came meanwhile. With a maximum
 * age of 0 every answer holds every block committed before its request arrived; with a few
 * milliseconds, every block committed that long before, and under load the requests stop waiting
 * for a round trip to the store: a read that is half its age old is renewed in the background
 * while the requests go on with it. The shared read runs outside any one request's deadline
 * (store.ts, `withoutDeadline`).
 */
export function sharedStoreStateReader(db: Db, maxAgeMs = 0): StoreStateReader {
  interface Read {
    startedAt: number;
    state: Promise<StoreState>;
  }
  let inFlight: Read | undefined;
  let next: Promise<StoreState> | undefined;
  /** The latest read that succeeded, to serve requests within the maximum age. */
  let latest: Read | undefined;
  const start = (): Promise<StoreState> => {
    const read: Read = { startedAt: performance.now(), state: withoutDeadline(() => queryStoreState(db)) };
    inFlight = read;
    read.state.then(
      () => {
        if (inFlight === read) inFlight = undefined;
        if (latest === undefined || latest.startedAt < read.startedAt) latest = read;
      },
      () => {
        if (inFlight === read) inFlight = undefined;
      },
    );
    return read.state;
  };
  return () => {
    const now = performance.now();
    if (latest !== undefined && now - latest.startedAt < maxAgeMs) {
      if (inFlight === undefined && now - latest.startedAt >= maxAgeMs / 2) void start().catch(() => undefined);
      return latest.state;
    }
    if (inFlight === undefined) return start();
    if (now - inFlight.startedAt < maxAgeMs) return inFlight.state;
    next ??= inFlight.state.then(
      () => ((next = undefined), start()),
      () => ((next = undefined), start()),
    );
    return next;
  };
}

/** One app's reader of the store's state (`sharedStoreStateReader`): the snapshot cache and the freshness hook share it. */
export type StoreStateReader = () => Promise<StoreState>;

/** Reads the store's state through `read` and files it as the state `request` is answered from. */
export async function readStoreState(read: StoreStateReader, request: FastifyRequest): Promise<StoreState> {
  const state = await read();
  states.set(request, state);
  return state;
}

/** The state `request` is answered from, once the freshness or snapshot-cache hook has read it. */
export const storeStateOf = (request: FastifyRequest): StoreState | undefined => states.get(request);

/**
 * `chain`'s network facts as of the state `request` is answered from: the slot time and address
 * width every figure and parser of the answer follows (the defaults outside /api/v1, where no state
 * is read).
 */
export function networkOf(request: FastifyRequest, chain: ChainId): ChainNetwork {
  return states.get(request)?.networks[chain] ?? DEFAULT_NETWORK[chain];
}

/** Where a route's chain comes from: its `chain` path or query parameter, a chain named in its path, or none. */
export type ChainSource = { param: 'params' | 'querystring' } | { chain: ChainId } | null;

const FIXED_CHAIN = new RegExp(`^/api/v1/(${CHAINS.join('|')})/`);

export function chainSourceOf(url: string, schema: { params?: unknown; querystring?: unknown } | undefined): ChainSource {
  for (const part of ['params', 'querystring'] as const) {
    const properties = (schema?.[part] as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (properties && 'chain' in properties) return { param: part };
  }
  const fixed = FIXED_CHAIN.exec(url);
  return fixed ? { chain: fixed[1] as ChainId } : null;
}

/** The header names of a tip: the request's chain's, or one chain's of a route without a chain. */
export const BLOCK_HEADERS = {
  height: 'Quarry-Block-Height',
  hash: 'Quarry-Block-Hash',
  chain: (chain: ChainId) => ({ height: `Quarry-${cap(chain)}-Block-Height`, hash: `Quarry-${cap(chain)}-Block-Hash` }),
};

function cap(chain: ChainId): string {
  return chain.charAt(0).toUpperCase() + chain.slice(1);
}

/** The chain a request asks about, as its route declares it (validation has filled the query's default). */
function chainOf(request: FastifyRequest, source: ChainSource): ChainId | null {
  if (source === null) return null;
  if ('chain' in source) return source.chain;
  const value = (request[source.param === 'params' ? 'params' : 'query'] as Record<string, unknown> | undefined)?.chain;
  return typeof value === 'string' && isChainId(value) ? value : null;
}

/**
 * Registers the freshness headers on every route of `app` (the /api/v1 scope): the state is read
 * before the handler unless the snapshot cache read it, and its tips are sent with every answer
 * that is not an error (200, and 304 to a conditional request).
 */
export function registerFreshness(app: FastifyInstance, read: StoreStateReader): void {
  const sourceOf = (request: FastifyRequest): ChainSource =>
    chainSourceOf(request.routeOptions.url ?? '', request.routeOptions.schema as { params?: unknown; querystring?: unknown } | undefined);

  // After the snapshot cache's own preHandler (registered at the root, so it runs first).
  app.addHook('preHandler', async (request) => {
    if (!states.has(request)) await readStoreState(read, request);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const state = states.get(request);
    if (!state || reply.statusCode >= 400) return payload;
    const chain = chainOf(request, sourceOf(request));
    if (chain) {
      const tip = state.tips[chain];
      if (tip) reply.header(BLOCK_HEADERS.height, tip.height).header(BLOCK_HEADERS.hash, tip.hash);
    } else {
      for (const c of CHAINS) {
        const tip = state.tips[c];
        const names = BLOCK_HEADERS.chain(c);
        if (tip) reply.header(names.height, tip.height).header(names.hash, tip.hash);
      }
    }
    return payload;
  });
}

/** The freshness headers a route's 200 answer carries, for the OpenAPI document. */
export function freshnessHeaders(url: string, schema: { params?: unknown; querystring?: unknown } | undefined): Record<string, Record<string, unknown>> {
  const source = chainSourceOf(url, schema);
  const height = (which: string) => ({
    type: 'string' as const,
    pattern: '^[0-9]+$',
    description: `Height of the latest block of ${which} in the stored data this answer was computed from (absent before the chain's first block).`,
  });
  const hash = (which: string) => ({ type: 'string' as const, description: `Hash of that block of ${which}.` });
  if (source) return { [BLOCK_HEADERS.height]: height('the request’s chain'), [BLOCK_HEADERS.hash]: hash('the request’s chain') };
  return Object.fromEntries(
    CHAINS.flatMap((c) => {
      const names = BLOCK_HEADERS.chain(c);
      return [
        [names.height, height(c)],
        [names.hash, hash(c)],
      ];
    }),
  );
}
