/** GET /api/v1/pos/fees/burned/summary: the pos chain's fee burn over its history and recent windows (docs/metrics.md, "Fee burn"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { Day, Nullable, NullableAmount } from '../../schemas/common.ts';
import { addDays, DAY_SECONDS, formatDay } from '../../../time.ts';
import { burnedInSql } from '../../../domain/fee-burn.ts';
import { windowEndingAt } from '../../../domain/window.ts';
import { chainSpan } from '../series.ts';
import { planckToCoins } from '../../../rollups/charts/fees/burn.ts';

const BurnedSummaryResponse = Type.Object({
  network: Type.String(),
  total_planck: { ...NullableAmount, description: 'Fees burned over the whole indexed history, planck.' },
  total_pos: Nullable(Type.String({ description: 'The same in coins, as an exact decimal string.' })),
  total_blocks: Nullable(Type.Integer({ description: 'Blocks indexed.' })),
  planck_24h: { ...NullableAmount, description: 'Burned by the blocks of the 24 hours ending at the latest block’s time.' },
  planck_7d: { ...NullableAmount, description: 'Burned on the 7 UTC days ending with the latest block’s day.' },
  planck_30d: { ...NullableAmount, description: 'Burned on the 30 UTC days ending with the latest block’s day.' },
  latest_day: Nullable(Day),
});

export function burnedSummaryRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/pos/fees/burned/summary',
    operationId: 'getBurnedSummary',
    summary: 'Fees burned on pos: all time, last day, 7 and 30 days',
    response: BurnedSummaryResponse,
    handler: async () => {
      const network = ctx.network('pos');
      const span = await chainSpan(ctx.store, 'pos');
      if (!span) return { network, total_planck: null, total_pos: null, total_blocks: null, planck_24h: null, planck_7d: null, planck_30d: null, latest_day: null };
      const tip = formatDay(span.tipTs);
      const [row] = await ctx.store.query<{ total: string; blocks: number; d1: string; d7: string; d30: string }>(
        'analytics.burned.summary',
        sql`SELECT coalesce(sum(burned), 0)::text AS total, coalesce(sum(block_count), 0)::int AS blocks,
                   ${burnedInSql('pos', windowEndingAt(span.tipTs, DAY_SECONDS))}::text AS d1,
                   coalesce(sum(burned) FILTER (WHERE day >= ${addDays(tip, -6)}::date), 0)::text AS d7,
                   coalesce(sum(burned) FILTER (WHERE day >= ${addDays(tip, -29)}::date), 0)::text AS d30
            FROM chain_daily WHERE chain = 'pos'`,
      );
      return {
        network,
        total_planck: row!.total,
        total_pos: planckToCoins(row!.total),
        total_blocks: row!.blocks,
        planck_24h: row!.d1,
        planck_7d: row!.d7,
        planck_30d: row!.d30,
        latest_day: tip,
      };
    },
  });
}
