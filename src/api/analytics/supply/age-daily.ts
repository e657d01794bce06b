/** GET /api/v1/analytics/supply/age-daily: holders and supply share per last-activity age bucket, per day (docs/metrics.md, "Holder population"). */
import { Type } from 'typebox';
import { supplyDays } from '../../../rollups/charts/supply/distribution.ts';
import { AGE_BUCKETS } from '../../../rollups/charts/supply/population.ts';
import { dayNumber, dayStart } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { percentOf } from '../../amounts.ts';
import { dailySeries, dayItem, envelope } from '../route.ts';
import { ageBuckets, holdersByLastDay } from './population.ts';

type Cells = { holders: number; balance: bigint }[];

const emptyCells = (): Cells => AGE_BUCKETS.map(() => ({ holders: 0, balance: 0n }));

export function ageDailyRoute(app: RouteApp, ctx: ApiContext): void {
  dailySeries(app, ctx, {
    path: '/analytics/supply/age-daily',
    operationId: 'getSupplyAgeDaily',
    summary: 'Holders and supply share by time since their last activity, per day',
    window: '365d',
    item: dayItem({
      bucket: Type.String({ description: 'Days since the last activity: <1m, 1m-1y, 1-2y, 2-5y, >5y.' }),
      balance_pct: Type.Number({ description: 'The bucket’s balances as a percentage of all holders’ at the day’s end.' }),
      holders: Type.Integer(),
    }),
    itemsDescription: 'Five items per UTC day (one per bucket), oldest day first; the latest block’s day as it stands.',
    envelope: { ...envelope('count', 'chain', 'network', 'window_days'), buckets: Type.Array(Type.String()) },
    read: async (range, { chain }) => {
      const [{ closed, open }, now] = await Promise.all([supplyDays(ctx.store, chain, range), holdersByLastDay(ctx, chain)]);
      const byDay = new Map([...closed].map(([day, r]) => [day, { day, cells: r.ages }]));
      // The latest day as it stands: the holders per last-activity day now, by age on that day.
      if (open) byDay.set(open.to, { day: open.to, cells: ageBuckets(now, dayNumber(dayStart(open.to))) });
      return byDay;
    },
    missingDay: { zero: (day) => ({ day, cells: emptyCells() }) },
    items: (rows) =>
      rows.flatMap(({ day, cells }) => {
        const supply = cells.reduce((s, c) => s + c.balance, 0n);
        return cells.map((c, b) => ({ day, bucket: AGE_BUCKETS[b]!.label, balance_pct: percentOf(c.balance, supply), holders: c.holders }));
      }),
    extra: () => ({ buckets: AGE_BUCKETS.map((b) => b.label) }),
  });
}
