/** GET /api/v1/analytics/network/tps: transactions per second of each chain over 1 h, 24 h and 7 d (docs/metrics.md, "Network status"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { CHAINS, type ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { formatGeneratedAt, nowMicros } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { windowEndingAt, type TipWindow } from '../../../domain/window.ts';
import { analyticsRoute, perSnapshot } from '../route.ts';
import { chainSpan } from '../series.ts';

const HOUR = 3600;

/** Blocks and transactions of a chain with a time in a window. */
export interface WindowCounts {
  blocks: number;
  txs: number;
}

/**
 * Blocks and transactions with a time in the window (`after`, `upTo`] (Unix seconds): the whole UTC
 * hours inside it from chain_hourly, the partial hours at its two edges (each under an hour of
 * blocks) from the blocks table, so that a 7-day window reads 168 rollup rows, not its blocks.
 */
export async function countWindow(db: Db, chain: ChainId, { after, upTo }: TipWindow): Promise<WindowCounts> {
  if (upTo <= after) return { blocks: 0, txs: 0 };
  // Whole hours: [h·3600, (h+1)·3600) inside (after, upTo].
  const firstHour = Math.floor(after / HOUR) + 1;
  const lastHour = Math.floor((upTo + 1) / HOUR) - 1;
  const whole = firstHour <= lastHour;
  // Blocks outside the whole hours, as inclusive time ranges (an empty range when lo > hi).
  const [lo1, hi1] = whole ? [after + 1, firstHour * HOUR - 1] : [after + 1, upTo];
  const [lo2, hi2] = whole ? [(lastHour + 1) * HOUR, upTo] : [1, 0];
  const [row] = await db.query<{ blocks: string | number; txs: string | number }>(
    'analytics.window_counts',
    sql`SELECT coalesce(sum(n), 0)::bigint AS blocks, coalesce(sum(t), 0)::bigint AS txs FROM (
          SELECT block_count AS n, tx_count AS t FROM chain_hourly WHERE chain = ${chain} AND hour BETWEEN ${firstHour} AND ${lastHour}
          UNION ALL SELECT 1, tx_count FROM blocks WHERE chain = ${chain} AND ts BETWEEN ${lo1} AND ${hi1}
          UNION ALL SELECT 1, tx_count FROM blocks WHERE chain = ${chain} AND ts BETWEEN ${lo2} AND ${hi2}
        ) w`,
    { reusePlan: true }, // primary-key and (chain, ts) index ranges, each bounded
  );
  return { blocks: Number(row?.blocks ?? 0), txs: Number(row?.txs ?? 0) };
}

/** The windows of the answer, in seconds. */
const WINDOWS = { tps_1h: HOUR, tps_24h: 24 * HOUR, tps_7d: 7 * 24 * HOUR } as const;

const TpsItem = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  tps_1h: Type.Number({ description: 'Transactions with a time in the hour ending at the latest block’s time, divided by 3,600; 0 on a chain without blocks.' }),
  tps_24h: Type.Number({ description: 'The same over 24 hours (86,400 s).' }),
  tps_7d: Type.Number({ description: 'The same over 7 days (604,800 s).' }),
});

const TpsResponse = Type.Object({
  items: Type.Array(TpsItem, { description: 'One item per chain, pow then pos.' }),
  count: Type.Integer(),
  generated_at: Type.String({ description: 'When the answer was computed, YYYY-MM-DDTHH:MM:SS.ffffffZ.' }),
});

export function networkTpsRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/network/tps',
    operationId: 'getNetworkTps',
    summary: 'Transactions per second of each chain over the last hour, day and week',
    response: TpsResponse,
    // It reads the clock (`generated_at`): computed at every request, from rates kept per database snapshot
    // (the windows end at the latest block).
    config: { snapshotCache: false },
    handler: async ({ snapshot }) => {
      const items = await perSnapshot(ctx, snapshot, 'tps', () =>
        Promise.all(
          CHAINS.map(async (chain) => {
            const span = await chainSpan(ctx.store, chain);
            const rates = { tps_1h: 0, tps_24h: 0, tps_7d: 0 };
            if (span) {
              for (const [field, seconds] of Object.entries(WINDOWS) as [keyof typeof WINDOWS, number][]) {
                rates[field] = (await countWindow(ctx.store, chain, windowEndingAt(span.tipTs, seconds))).txs / seconds;
              }
            }
            return { chain, network: ctx.network(chain), ...rates };
          }),
        ),
      );
      return { items, count: items.length, generated_at: formatGeneratedAt(nowMicros()) };
    },
  });
}
