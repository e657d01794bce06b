/**
 * Answers kept per database snapshot (docs/api-conventions.md, "Caching and limits"). An analytics
 * or Addresses API answer is a function of its route's parameters and of the data its queries see, and what queries
 * see changes only when a write commits, which changes the snapshot PostgreSQL reports
 * (pg_current_snapshot(): the next transaction id and those still in progress; on a standby the
 * position its replay has reached, plugins/freshness.ts). So a request whose
 * parameters were answered under the snapshot of now gets the same bytes again after one small
 * query (shared by the requests of the next few milliseconds: plugins/freshness.ts), and the next block's commit makes every kept answer unreachable: answers stay exact and
 * current to the latest block, and a ten-year chart costs its computation once per block instead of
 * once per request.
 *
 * An answer is kept under its normalised request, not its URL: the route, its path parameters, and
 * its declared query parameters as validated (coerced, defaults filled in, booleans spelled one
 * way), in name order. Query parameters the route does not declare are ignored by the route, so
 * they are left out of the key too: junk parameters cannot make new entries, and `?window=30d` is
 * the same entry as no window where 30d is the default. A route that opts in must therefore answer from its declared
 * parameters alone (the analytics routes' handlers receive nothing else: analytics/route.ts).
 *
 * The memory budget (split in two shares, below) counts what an entry holds: its key (as V8 stores
 * the string: one byte a character when all are Latin-1, else two), its body (kept as the UTF-8
 * bytes that are sent, so a hit is not encoded again), each compressed form, and a fixed overhead
 * per entry and per compressed form for the objects around them; least recently used entries go first.
 *
 * Routes opt in with `config.snapshotCache`: the analytics group sets it for its routes, those that
 * read the clock (health's lag, `generated_at`) leave it off; the Addresses API sets it too, for
 * its own share of the budget (`ADDRESS_SHARE`). `Cache-Control: no-cache`
 * computes the answer anew (and keeps it) only for operator keys (QUARRY_API_KEYS: the benchmark's
 * computed path, an operator checking an answer); from any other key it is answered from the cache
 * like any request, so it cannot be used to make the server compute at will. Registered before
 * compression and ETags, so it keeps the serialized JSON and its ETag; it also keeps each compressed
 * form of it that a client asked for (plugins/compression.ts), so a hit is not compressed again either.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isTrue } from '../schemas/common.ts';
import { acceptedEncoding, COMPRESSION_THRESHOLD, compressBody, type Encoding } from './compression.ts';
import { wantsCsv } from './csv.ts';
import { readStoreState, type StoreStateReader } from './freshness.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The answer depends only on the route's declared parameters and the stored data: kept per
     * snapshot, in the analytics' share of the budget (`true`) or the Addresses API's (`'addresses'`).
     */
    snapshotCache?: boolean | 'addresses';
  }
  interface FastifyInstance {
    /** What the answer cache holds now, and its hits and misses since start. */
    snapshotCacheStats(): SnapshotCacheStats;
  }
  interface FastifyRequest {
    /** Whether a kept answer served the request; unset where the cache was not asked (the metrics count it). */
    answerCache?: 'hit' | 'miss';
  }
}

export interface SnapshotCacheStats {
  entries: number;
  /** Entries of the Addresses API's share (counted in `entries` too). */
  addressEntries: number;
  /** Memory the kept answers hold, as the budget counts it. */
  bytes: number;
  hits: number;
  misses: number;
}

/** Bytes counted for an entry's objects besides its strings and buffers: the map entry, the record, its map of compressed forms, the ETag and content-type strings. */
export const ENTRY_OVERHEAD = 512;
/** Bytes counted for a compressed form's Buffer object and map entry besides its bytes. */
export const ENCODED_OVERHEAD = 128;

/** Bytes a string holds in V8: one a character when every character is Latin-1, else two. */
const stringBytes = (text: string) => (/[^\u0000-\u00ff]/.test(text) ? 2 * text.length : text.length);

interface Kept {
  /** Memory counted for the entry's key and body and its overhead. */
  baseBytes: number;
  /** The serialized JSON as sent (UTF-8). */
  body: Buffer;
  contentType: string;
  etag: string;
  /** The body compressed, per encoding a client accepted. */
  encoded: Map<Encoding, Buffer>;
}

/** What a kept answer holds, in bytes, as the budget counts it. */
const sizeOf = (kept: Kept) => kept.baseBytes + [...kept.encoded.values()].reduce((n, b) => n + b.length + ENCODED_OVERHEAD, 0);

/** A declared query parameter: its name, and how its validated value is written in the key. */
type Declared = [name: string, canonical: (value: unknown) => unknown];

const asIs = (value: unknown) => value;
/** The API's booleans take true/false/1/0 (schemas/common.ts, `BooleanQuery`), which routes read with `isTrue`: one spelling each. */
const asBoolean = (value: unknown) => isTrue(value as 'true' | 'false' | '1' | '0');
const isBooleanQuery = (schema: unknown) => {
  const values = (schema as { enum?: unknown[] } | null)?.enum;
  return Array.isArray(values) && values.length === 4 && ['true', 'false', '1', '0'].every((v) => values.includes(v));
};

/** A route's declared query parameters, in name order, read once per route schema. */
const declaredParams = new WeakMap<object, Declared[]>();

function declaredOf(request: FastifyRequest): Declared[] {
  const schema = request.routeOptions.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  if (!schema) return [];
  let declared = declaredParams.get(schema);
  if (!declared) {
    const properties = schema.properties ?? {};
    declared = Object.keys(properties)
      .sort()
      .map((name): Declared => [name, isBooleanQuery(properties[name]) ? asBoolean : asIs]);
    declaredParams.set(schema, declared);
  }
  return declared;
}

/**
 * The normalised request: the route, its path parameters, and its declared query parameters as
 * validated (coerced to their types, defaults filled in, booleans as true or false), each list in
 * name order. Undeclared query parameters are not part of it.
 */
export function cacheKeyOf(request: FastifyRequest): string {
  const params = (request.params ?? {}) as Record<string, unknown>;
  const query = (request.query ?? {}) as Record<string, unknown>;
  const pathPart = Object.keys(params).sort().map((name) => [name, params[name]]);
  const queryPart = declaredOf(request)
    .filter(([name]) => query[name] !== undefined)
    .map(([name, canonical]) => [name, canonical(query[name])]);
  return JSON.stringify([request.routeOptions.url, pathPart, queryPart]);
}

/**
 * The hash of every ETag the API sends: @fastify/etag is registered with it (app.ts), and a kept
 * answer carries the ETag made from it, so a hit is not hashed again and matches a miss's.
 */
export const etagHash = (body: string | Buffer) => createHash('sha1').update(body).digest('base64');

/**
 * The Addresses API's share of the budget. Its answers are per address: a crawl over many addresses
 * makes many entries that are rarely asked again, so they are kept apart, where they cannot push
 * out the analytics answers (a ten-year chart costs far more to compute again than an address page),
 * while the addresses everyone looks at (exchange wallets, the leaderboards, the population figures)
 * are answered from memory between blocks.
 */
export const ADDRESS_SHARE = 0.25;

/** Kept answers of one share of the budget, least recently used first. */
class Pool {
  readonly kept = new Map<string, Kept>();
  bytes = 0;
  constructor(readonly maxBytes: number) {}

  clear(): void {
    this.kept.clear();
    this.bytes = 0;
  }

  /** The entry under `key`, made the most recently used. */
  take(key: string): Kept | undefined {
    const hit = this.kept.get(key);
    if (hit) {
      this.kept.delete(key);
      this.kept.set(key, hit);
    }
    return hit;
  }

  put(key: string, entry: Kept): void {
    const replaced = this.kept.get(key);
    if (replaced) this.bytes -= sizeOf(replaced);
    this.kept.delete(key);
    this.kept.set(key, entry);
    this.bytes += entry.baseBytes;
    this.evict();
  }

  /** Counts a compressed form added to an entry. */
  grow(by: number): void {
    this.bytes += by;
    this.evict();
  }

  private evict(): void {
    for (const [key, old] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(key);
      this.bytes -= sizeOf(old);
    }
  }
}

export function registerSnapshotCache(app: FastifyInstance, readState: StoreStateReader, maxBytes: number): void {
  app.decorateRequest('answerCache', undefined);
  const addressBytes = Math.floor(maxBytes * ADDRESS_SHARE);
  const pools = { analytics: new Pool(maxBytes - addressBytes), addresses: new Pool(addressBytes) };
  // All of one snapshot: the pools are emptied when the snapshot moves on.
  let snapshot = '';
  let hits = 0;
  let misses = 0;
  app.decorate('snapshotCacheStats', () => ({
    entries: pools.analytics.kept.size + pools.addresses.kept.size,
    addressEntries: pools.addresses.kept.size,
    bytes: pools.analytics.bytes + pools.addresses.bytes,
    hits,
    misses,
  }));
  if (maxBytes <= 0) return;
  const pending = new WeakMap<FastifyRequest, { snapshot: string; key: string; pool: Pool }>();
  const poolOf = (request: FastifyRequest) => (request.routeOptions.config.snapshotCache === 'addresses' ? pools.addresses : pools.analytics);

  // After authentication and validation (preHandler): a bad request is refused as always.
  app.addHook('preHandler', async (request, reply) => {
    // A CSV export is a stream, computed per request: the kept answers are the JSON ones.
    if (request.method !== 'GET' || !request.routeOptions.config.snapshotCache || wantsCsv(request)) return;
    // The same read gives the chains' tips the answer's freshness headers name (plugins/freshness.ts).
    const now = (await readStoreState(readState, request)).snapshot;
    if (now !== snapshot) {
      pools.analytics.clear();
      pools.addresses.clear();
      snapshot = now;
    }
    const key = cacheKeyOf(request);
    const pool = poolOf(request);
    // `Cache-Control: no-cache` asks for the answer computed anew (HTTP's meaning): granted to operator keys only.
    const recompute = request.apiKeyTier === 'operator' && /no-cache/i.test(request.headers['cache-control'] ?? '');
    const hit = recompute ? undefined : pool.take(key);
    request.answerCache = hit ? 'hit' : 'miss';
    if (!hit) {
      misses++;
      pending.set(request, { snapshot: now, key, pool });
      return;
    }
    hits++;
    return reply.header('content-type', hit.contentType).header('etag', hit.etag).send(bodyFor(request, reply, hit, pool));
  });

  /**
   * The kept answer in the encoding the client accepts, compressed on first demand and kept with
   * it (the compression plugin passes a body that has its Content-Encoding through).
   */
  function bodyFor(request: FastifyRequest, reply: FastifyReply, entry: Kept, pool: Pool): Buffer {
    const encoding = entry.body.length >= COMPRESSION_THRESHOLD ? acceptedEncoding(request) : undefined;
    if (encoding === undefined) return entry.body;
    let encoded = entry.encoded.get(encoding);
    if (!encoded) {
      encoded = compressBody(encoding, entry.body);
      entry.encoded.set(encoding, encoded);
      pool.grow(encoded.length + ENCODED_OVERHEAD);
    }
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, accept-encoding` : 'accept-encoding').header('content-encoding', encoding);
    return encoded;
  }

  app.addHook('onSend', async (request, reply, payload) => {
    const miss = pending.get(request);
    if (!miss || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const body = Buffer.from(payload);
    const etag = `"${etagHash(body)}"`;
    reply.header('etag', etag);
    const baseBytes = ENTRY_OVERHEAD + stringBytes(miss.key) + body.length;
    // An answer computed while the snapshot moved on is for no later request: not kept.
    if (miss.snapshot !== snapshot || baseBytes > miss.pool.maxBytes) return payload;
    const entry: Kept = {
      baseBytes,
      body,
      contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      etag,
      encoded: new Map(),
    };
    miss.pool.put(miss.key, entry);
    return bodyFor(request, reply, entry, miss.pool);
  });
}
