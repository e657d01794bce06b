/**
 * GET /api/v1/analytics/network/health: how far behind the wall clock each chain's index is, and
 * whether its indexer is stalled at a height (docs/metrics.md, "Network status"). For display, not
 * alerting. Beyond the spec's fields: per chain, the slot time its status is measured in and where
 * that comes from (chain/network.ts), how long since its indexer last recorded the node's tip, and
 * whether internal transfers are indexed; on pos, `staking_sync`, whether the staking sync gets
 * through to its beacon node; `pending_pool`, how the indexer's reading of the node's pool of pending
 * transactions goes; and `replica`, what the answering process reads from and, on a
 * standby, how far its replay is behind the primary (docs/deploy.md).
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { CHAINS, type ChainId } from '../../../chain/chains.ts';
import type { ChainNetwork } from '../../../chain/network.ts';
import { DAY_SECONDS, formatGeneratedAt, formatTimestamp, nowMicros } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute, perSnapshot } from '../route.ts';
import { NullableTimestamp, StringEnum, Timestamp } from '../../schemas/common.ts';
import { readStalls } from '../../../ingest/stalls.ts';
import { countWindow } from './tps.ts';
import { windowEndingAt } from '../../../domain/window.ts';
import { readReplication } from '../../../store/replication.ts';
import { INTERNAL_TRANSFER_STATES, readInternalTransfers } from '../../../store/internal-transfers.ts';
import { readStakingSyncStatus, type StakingSyncStatus } from '../../../ingest/staking-status.ts';
import { readPendingPoll } from '../../../ingest/pending-store.ts';
import { PendingSource, pendingSource } from '../../schemas/pending.ts';

/** A tip at most this many slot times old is `ok` [HEALTH_OK_BLOCKS]. */
export const HEALTH_OK_BLOCKS = 10;
/** Beyond this many slot times the chain is `stalled`; in between `degraded` [HEALTH_STALLED_BLOCKS]. */
export const HEALTH_STALLED_BLOCKS = 60;

const STATUSES = ['ok', 'degraded', 'stalled', 'unknown'] as const;
type HealthStatus = (typeof STATUSES)[number];

/** The status of a tip `lagSeconds` old on a network of `slotSeconds` per slot (pow: its target block time). */
export function healthStatus(slotSeconds: number, lagSeconds: number | null): HealthStatus {
  if (lagSeconds === null) return 'unknown';
  if (lagSeconds <= HEALTH_OK_BLOCKS * slotSeconds) return 'ok';
  return lagSeconds <= HEALTH_STALLED_BLOCKS * slotSeconds ? 'degraded' : 'stalled';
}

const StakingSync = Type.Object(
  {
    status: StringEnum(['ok', 'stopped', 'unknown'] as const, {
      description: 'ok: the last staking sync succeeded; stopped: the last one failed (see error); unknown: none has run against this store (no beacon node configured).',
    }),
    last_success_time: { ...NullableTimestamp, description: 'When a staking sync last succeeded; null when none did.' },
    error: Type.Union(
      [
        Type.Object({
          route: Type.Union([Type.String(), Type.Null()], { description: 'The request that failed, e.g. GET /qrl/v1/beacon/genesis; null when no request failed.' }),
          node: Type.String({ description: 'The beacon node, its URL without credentials.' }),
          message: Type.String(),
          time: Timestamp,
        }),
        Type.Null(),
      ],
      { description: 'Why the last staking sync stopped; null once one succeeds.' },
    ),
  },
  { description: 'pos: the staking sync from the beacon node (validators, staking_daily); null on pow.' },
);

function stakingSync(status: StakingSyncStatus) {
  const { error, lastSuccessTs } = status;
  return {
    status: error ? ('stopped' as const) : lastSuccessTs !== null ? ('ok' as const) : ('unknown' as const),
    last_success_time: lastSuccessTs === null ? null : formatTimestamp(lastSuccessTs),
    error: error ? { route: error.route, node: error.node, message: error.message, time: formatTimestamp(error.at) } : null,
  };
}

const ChainHealth = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  slot_seconds: Type.Integer({ description: 'The network’s slot time in seconds (pow: its target block time), which the status is measured in: the beacon node’s spec, else the one the block timestamps show, else the default (pos 12 s, pow 60 s).' }),
  clock_source: StringEnum(['beacon', 'blocks', 'default'] as const, { description: 'Where slot_seconds comes from: the beacon node’s spec, the chain’s block timestamps, or the default before a node has been seen.' }),
  latest_block_time: { ...NullableTimestamp, description: 'Time of the latest indexed block; null before any block.' },
  tip_lag_seconds: Type.Union([Type.Integer(), Type.Null()], { description: 'Now − the latest block’s time in whole seconds (0 when the block is ahead of the clock); null before any block.' }),
  silver_blocks_24h: Type.Integer({ description: 'Indexed blocks with a time in the 24 hours up to now.' }),
  dlq_open_count: Type.Integer({ description: 'Dead letters (undecodable blocks or parts of blocks) not marked resolved.' }),
  status: StringEnum(STATUSES, { description: 'unknown: no block; stalled: the indexer cannot get past a height (see stalled_height), or a lag of more than 60 slot times (slot_seconds); ok: lag ≤ 10 slot times; degraded: ≤ 60 slot times.' }),
  stalled_height: Type.Union([Type.Integer(), Type.Null()], { description: 'The height the indexer cannot write (nothing at or above it is stored); null when it advances.' }),
  stall_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the indexer cannot get past stalled_height; null when it advances.' }),
  indexer_seen_seconds_ago: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Seconds since the chain’s indexer last recorded the node’s tip (it does when the tip moves, and at least every 30 s while it runs); null when it never did. Grows while no indexer runs.',
  }),
  internal_transfers: StringEnum(INTERNAL_TRANSFER_STATES, {
    description: 'pos: indexed, or not_indexed when the indexer runs without a tracer (--no-traces): internal transfers are then missing and balances of contracts that pass value on are wrong. not_applicable on pow.',
  }),
  staking_sync: Type.Union([StakingSync, Type.Null()]),
  pending_pool: { ...PendingSource, description: 'The indexer\'s reading of the node\'s pool of pending transactions (GET /{chain}/transactions/pending): whether it follows the node, its last poll and read, and why a poll failed.' },
});

const Replica = Type.Object(
  {
    role: StringEnum(['embedded', 'primary', 'standby'] as const, {
      description: 'What the answering API process reads from: embedded (PGlite), a PostgreSQL primary, or a standby (streaming replica).',
    }),
    lag_seconds: Type.Union([Type.Number(), Type.Null()], {
      description: 'On a standby, seconds its replay is behind the primary: 0 when it has replayed all it received, else the age of the last transaction replayed. Null elsewhere.',
    }),
    lag_bytes: Type.Union([Type.Integer(), Type.Null()], { description: 'On a standby, bytes of WAL received and not replayed yet. Null elsewhere.' }),
  },
  { description: 'The answering process’s store. With several API processes on replicas, each answers for its own.' },
);

const HealthResponse = Type.Object({
  chains: Type.Record(Type.String(), ChainHealth, { description: 'Keyed by <chain>:<network>, pow then pos.' }),
  checked_at: Type.String({ description: 'The clock the lags are measured against, YYYY-MM-DDTHH:MM:SS.ffffffZ.' }),
  replica: Replica,
});

export interface HealthOptions {
  /** The wall clock in Unix microseconds; tests fix it. */
  now?: () => number;
}

export function networkHealthRoute(app: RouteApp, ctx: ApiContext, options: HealthOptions = {}): void {
  const clock = options.now ?? nowMicros;
  analyticsRoute(app, {
    path: '/analytics/network/health',
    operationId: 'getNetworkHealth',
    summary: 'Indexing lag, recent blocks, open dead letters and a status per chain',
    response: HealthResponse,
    // It reads the clock (`checked_at`, the lags, a window up to now), so the snapshot cache cannot
    // keep it; its figures depend only on the stored data and the clock's second, so they are
    // computed once per snapshot and second, and the replica's lag, which moves without either, at
    // every request.
    config: { snapshotCache: false },
    handler: async ({ snapshot, networks }) => {
      const micros = clock();
      const now = Math.floor(micros / 1_000_000);
      const replication = await readReplication(ctx.store);
      // The networks are read in the snapshot's statement: the snapshot's key covers them.
      const entries = await perSnapshot(ctx, snapshot, `health:${now}`, () => chainHealth(ctx, networks, now));
      const replica = { role: replication.role, lag_seconds: replication.lagSeconds, lag_bytes: replication.lagBytes };
      return { chains: Object.fromEntries(entries), checked_at: formatGeneratedAt(micros), replica };
    },
  });
}

/** Each chain's health at `now` (Unix seconds) on its network's clock, keyed by <chain>:<network>. */
async function chainHealth(ctx: ApiContext, networks: Readonly<Record<ChainId, ChainNetwork>>, now: number) {
  const stalls = await readStalls(ctx.store);
  return Promise.all(
    CHAINS.map(async (chain) => {
      const [row] = await ctx.store.query<{ tip_ts: string | number | null; dlq: string | number; seen_ts: string | number | null }>(
        'analytics.health.chain',
        sql`SELECT (SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1) AS tip_ts,
                   (SELECT count(*) FROM dead_letters WHERE chain = ${chain} AND resolved_ts IS NULL) AS dlq,
                   (SELECT seen_ts FROM chain_node_tips WHERE chain = ${chain}) AS seen_ts`,
        { reusePlan: true }, // a key lookup and the partial index of open letters
      );
      const tipTs = row?.tip_ts == null ? null : Number(row.tip_ts);
      const stall = stalls.get(chain);
      const lag = tipTs === null ? null : Math.max(0, now - tipTs);
      const network = ctx.network(chain);
      const { slotSeconds, clockSource } = networks[chain];
      const health = {
        chain,
        network,
        slot_seconds: slotSeconds,
        clock_source: clockSource,
        latest_block_time: tipTs === null ? null : formatTimestamp(tipTs),
        tip_lag_seconds: lag,
        silver_blocks_24h: tipTs === null ? 0 : (await countWindow(ctx.store, chain, windowEndingAt(now, DAY_SECONDS))).blocks,
        dlq_open_count: Number(row?.dlq ?? 0),
        status: stall ? ('stalled' as const) : healthStatus(slotSeconds, lag),
        stalled_height: stall?.height ?? null,
        stall_reason: stall?.reason ?? null,
        indexer_seen_seconds_ago: row?.seen_ts == null ? null : Math.max(0, now - Number(row.seen_ts)),
        internal_transfers: (await readInternalTransfers(ctx.store, chain)).status,
        staking_sync: chain === 'pos' ? stakingSync(await readStakingSyncStatus(ctx.store)) : null,
        pending_pool: pendingSource(await readPendingPoll(ctx.store, chain), now).source,
      };
      return [`${chain}:${network}`, health] as const;
    }),
  );
}
