/** GET /api/v1/analytics/supply/age-daily: holders and supply share per last-activity age bucket, per day (docs/metrics.md, "Holder population"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { AGE_BUCKETS, ageBucketOf } from '../../../rollups/charts/supply/population.ts';
import { dayNumber, dayStart, eachDay } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { percentOf } from '../../amounts.ts';
import { SeriesQuery, seriesWindow } from '../series.ts';
import { ageDays, holdersByLastDay } from './population.ts';

const AgeItem = Type.Object({
  day: Day,
  bucket: Type.String({ description: 'Days since the last activity: <1m, 1m-1y, 1-2y, 2-5y, >5y.' }),
  balance_pct: Type.Number({ description: 'The bucket’s balances as a percentage of all holders’ at the day’s end.' }),
  holders: Type.Integer(),
});

const AgeDaily = Type.Object({
  items: Type.Array(AgeItem, { description: 'Five items per UTC day (one per bucket), oldest day first; the latest block’s day as it stands.' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  window_days: Type.Integer(),
  buckets: Type.Array(Type.String()),
});

type Cells = { holders: number; balance: bigint }[];

const emptyCells = (): Cells => AGE_BUCKETS.map(() => ({ holders: 0, balance: 0n }));

export function ageDailyRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/supply/age-daily',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getSupplyAgeDaily',
        summary: 'Holders and supply share by time since their last activity, per day',
        querystring: SeriesQuery('365d'),
        response: { 200: AgeDaily, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await seriesWindow(ctx.store, chain, request.query.window, '365d');
      const envelope = { chain, network: ctx.network(chain), window_days: days, buckets: AGE_BUCKETS.map((b) => b.label) };
      if (!range) return { items: [], count: 0, ...envelope };
      const [rows, open] = await Promise.all([
        ctx.store.query<{ day: string; h: number[]; b: string[] }>(
          'analytics.supply.age_daily',
          sql`SELECT day::text AS day, age_holders AS h, age_balance::text[] AS b FROM chain_supply_daily
              WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`,
        ),
        holdersByLastDay(ctx, chain),
      ]);
      const byDay = new Map<string, Cells>(rows.map((r) => [r.day, r.h.map((h, i) => ({ holders: Number(h), balance: BigInt(r.b[i]!) }))]));
      const today = emptyCells();
      const todayNumber = dayNumber(dayStart(range.to));
      for (const c of open) {
        const cell = today[ageBucketOf(ageDays(c, todayNumber))]!;
        cell.holders += c.holders;
        cell.balance += c.balance;
      }
      byDay.set(range.to, today);
      const items = eachDay(range.from, range.to).flatMap((day) => {
        const cells = byDay.get(day) ?? emptyCells();
        const supply = cells.reduce((s, c) => s + c.balance, 0n);
        return cells.map((c, b) => ({ day, bucket: AGE_BUCKETS[b]!.label, balance_pct: percentOf(c.balance, supply), holders: c.holders }));
      });
      return { items, count: items.length, ...envelope };
    },
  );
}
