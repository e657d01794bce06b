/** GET /api/v1/analytics/supply/dormant-buckets: holders and supply share by time since last activity, now (docs/metrics.md, "Holder population"). */
import { Type } from 'typebox';
import { dayNumber } from '../../../time.ts';
import { AGE_BUCKETS } from '../../../rollups/charts/supply/population.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { percentOf } from '../../amounts.ts';
import { analyticsRoute, envelope } from '../route.ts';
import { AnalyticsChain, chainSpan } from '../series.ts';
import { ageBuckets, holdersByLastDay } from './population.ts';

export function dormantBucketsRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/supply/dormant-buckets',
    operationId: 'getSupplyDormantBuckets',
    summary: 'Holders and supply share by time since their last activity',
    query: Type.Object({ chain: AnalyticsChain }),
    response: Type.Object({
      items: Type.Array(
        Type.Object({
          bucket: Type.String({ description: 'Days since the last activity: <1m, 1m-1y, 1-2y, 2-5y, >5y.' }),
          holders: Type.Integer(),
          total_balance_pct: Type.Number({ description: 'Their balances as a percentage of all holders’.' }),
        }),
      ),
      ...envelope('count', 'chain', 'network'),
    }),
    handler: async ({ chain }) => {
      const span = await chainSpan(ctx.store, chain);
      const cells = span ? await holdersByLastDay(ctx, chain) : [];
      const buckets = span && cells.length > 0 ? ageBuckets(cells, dayNumber(span.tipTs)) : [];
      const supply = buckets.reduce((s, b) => s + b.balance, 0n);
      const items = buckets.map((b, i) => ({ bucket: AGE_BUCKETS[i]!.label, holders: b.holders, total_balance_pct: percentOf(b.balance, supply) }));
      return { items, count: items.length, chain, network: ctx.network(chain) };
    },
  });
}
