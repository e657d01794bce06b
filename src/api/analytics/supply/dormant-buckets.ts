/** GET /api/v1/analytics/supply/dormant-buckets: holders and supply share by time since last activity, now (docs/metrics.md, "Holder population"). */
import { Type } from 'typebox';
import { dayNumber } from '../../../time.ts';
import { AGE_BUCKETS, ageBucketOf } from '../../../rollups/charts/supply/population.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { STANDARD_ERRORS } from '../../schemas/common.ts';
import { percentOf } from '../../amounts.ts';
import { AnalyticsChain, chainSpan } from '../series.ts';
import { ageDays, holdersByLastDay } from './population.ts';

const DormantBuckets = Type.Object({
  items: Type.Array(
    Type.Object({
      bucket: Type.String({ description: 'Days since the last activity: <1m, 1m-1y, 1-2y, 2-5y, >5y.' }),
      holders: Type.Integer(),
      total_balance_pct: Type.Number({ description: 'Their balances as a percentage of all holders’.' }),
    }),
  ),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
});

export function dormantBucketsRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/supply/dormant-buckets',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getSupplyDormantBuckets',
        summary: 'Holders and supply share by time since their last activity',
        querystring: Type.Object({ chain: AnalyticsChain }),
        response: { 200: DormantBuckets, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const envelope = { chain, network: ctx.network(chain) };
      const span = await chainSpan(ctx.store, chain);
      const cells = span ? await holdersByLastDay(ctx, chain) : [];
      if (!span || cells.length === 0) return { items: [], count: 0, ...envelope };
      const today = dayNumber(span.tipTs);
      const buckets = AGE_BUCKETS.map(() => ({ holders: 0, balance: 0n }));
      let supply = 0n;
      for (const c of cells) {
        const b = buckets[ageBucketOf(ageDays(c, today))]!;
        b.holders += c.holders;
        b.balance += c.balance;
        supply += c.balance;
      }
      const items = AGE_BUCKETS.map((bucket, i) => ({ bucket: bucket.label, holders: buckets[i]!.holders, total_balance_pct: percentOf(buckets[i]!.balance, supply) }));
      return { items, count: items.length, ...envelope };
    },
  );
}
