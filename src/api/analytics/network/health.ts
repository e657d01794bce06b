/**
 * GET /api/v1/analytics/network/health: how far behind the wall clock each chain's index is, and
 * whether its indexer is stalled at a height (docs/metrics.md, "Network status"). For display, not
 * alerting.
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { CHAIN_INFO, CHAINS, type ChainId } from '../../../chain/chains.ts';
import { DAY_SECONDS, formatGeneratedAt, formatTimestamp, nowMicros } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { NullableTimestamp, StringEnum } from '../../schemas/common.ts';
import { readStalls } from '../../../ingest/stalls.ts';
import { countWindow } from './tps.ts';
import { windowEndingAt } from '../../../domain/window.ts';

/** A tip at most this many block times old is `ok` [HEALTH_OK_BLOCKS]. */
export const HEALTH_OK_BLOCKS = 10;
/** Beyond this many block times the chain is `stalled`; in between `degraded` [HEALTH_STALLED_BLOCKS]. */
export const HEALTH_STALLED_BLOCKS = 60;

const STATUSES = ['ok', 'degraded', 'stalled', 'unknown'] as const;
type HealthStatus = (typeof STATUSES)[number];

export function healthStatus(chain: ChainId, lagSeconds: number | null): HealthStatus {
  if (lagSeconds === null) return 'unknown';
  const blockTime = CHAIN_INFO[chain].blockTime;
  if (lagSeconds <= HEALTH_OK_BLOCKS * blockTime) return 'ok';
  return lagSeconds <= HEALTH_STALLED_BLOCKS * blockTime ? 'degraded' : 'stalled';
}

const ChainHealth = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  latest_block_time: { ...NullableTimestamp, description: 'Time of the latest indexed block; null before any block.' },
  tip_lag_seconds: Type.Union([Type.Integer(), Type.Null()], { description: 'Now − the latest block’s time in whole seconds (0 when the block is ahead of the clock); null before any block.' }),
  silver_blocks_24h: Type.Integer({ description: 'Indexed blocks with a time in the 24 hours up to now.' }),
  dlq_open_count: Type.Integer({ description: 'Dead letters (undecodable blocks or parts of blocks) not marked resolved.' }),
  status: StringEnum(STATUSES, { description: 'unknown: no block; stalled: the indexer cannot get past a height (see stalled_height), or a lag of more than 60 block times; ok: lag ≤ 10 block times; degraded: ≤ 60 block times.' }),
  stalled_height: Type.Union([Type.Integer(), Type.Null()], { description: 'The height the indexer cannot write (nothing at or above it is stored); null when it advances.' }),
  stall_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the indexer cannot get past stalled_height; null when it advances.' }),
});

const HealthResponse = Type.Object({
  chains: Type.Record(Type.String(), ChainHealth, { description: 'Keyed by <chain>:<network>, pow then pos.' }),
  checked_at: Type.String({ description: 'The clock the lags are measured against, YYYY-MM-DDTHH:MM:SS.ffffffZ.' }),
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
    // It reads the clock (`generated_at`, a lag or a window up to now): computed at every request.
    config: { snapshotCache: false },
    handler: async () => {
      const micros = clock();
      const now = Math.floor(micros / 1_000_000);
      const stalls = await readStalls(ctx.store);
      const entries = await Promise.all(
        CHAINS.map(async (chain) => {
          const [row] = await ctx.store.query<{ tip_ts: string | number | null; dlq: string | number }>(
            'analytics.health.chain',
            sql`SELECT (SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1) AS tip_ts,
                       (SELECT count(*) FROM dead_letters WHERE chain = ${chain} AND resolved_ts IS NULL) AS dlq`,
            { reusePlan: true }, // a key lookup and the partial index of open letters
          );
          const tipTs = row?.tip_ts == null ? null : Number(row.tip_ts);
          const stall = stalls.get(chain);
          const lag = tipTs === null ? null : Math.max(0, now - tipTs);
          const network = ctx.network(chain);
          const health = {
            chain,
            network,
            latest_block_time: tipTs === null ? null : formatTimestamp(tipTs),
            tip_lag_seconds: lag,
            silver_blocks_24h: tipTs === null ? 0 : (await countWindow(ctx.store, chain, windowEndingAt(now, DAY_SECONDS))).blocks,
            dlq_open_count: Number(row?.dlq ?? 0),
            status: stall ? 'stalled' : healthStatus(chain, lag),
            stalled_height: stall?.height ?? null,
            stall_reason: stall?.reason ?? null,
          };
          return [`${chain}:${network}`, health] as const;
        }),
      );
      return { chains: Object.fromEntries(entries), checked_at: formatGeneratedAt(micros) };
    },
  });
}
