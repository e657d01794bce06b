/** GET /api/v1/analytics/supply/curve: a chain's coins minted per day and in all (docs/metrics.md, "Supply"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { SeriesQuery, windowDaysOf } from '../series.ts';
import { addDays } from '../../../time.ts';
import { chainEnds, mintedDays, supplyTotals } from './minted-days.ts';

const CurveItem = Type.Object({
  day: Day,
  minted_today: { ...Amount, description: 'Minted that day (block rewards; pos withdrawals and migration mints; the genesis allocations on the genesis block’s day), in the chain’s smallest unit.' },
  block_count_today: Type.Integer(),
  cumulative_minted: { ...Amount, description: 'Genesis allocations plus everything minted up to the day’s end (the timeline’s supply).' },
});

const CurveResponse = Type.Object({
  items: Type.Array(CurveItem, { description: 'One item per UTC day, oldest first, from the later of the window start and the first indexed day to the latest block’s day.' }),
  count: Type.Integer(),
  chain: Type.String(),
  days: Type.Integer({ description: 'The window’s length in days.' }),
});

export function supplyCurveRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/supply/curve',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getSupplyCurve',
        summary: 'Coins minted per day and cumulative supply of a chain',
        querystring: SeriesQuery('365d'),
        response: { 200: CurveResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const days = windowDaysOf(request.query.window, { fallback: '365d' });
      const ends = await chainEnds(ctx.store, chain);
      if (!ends) return { items: [], count: 0, chain, days };
      const start = addDays(ends.tipDay, 1 - days);
      const from = start < ends.firstDay ? ends.firstDay : start;
      const totals = await supplyTotals(ctx.store, chain);
      const items = (await mintedDays(ctx.store, chain, ends, totals, from, ends.tipDay)).map((d) => ({
        day: d.day,
        minted_today: d.minted.toString(),
        block_count_today: d.blockCount,
        cumulative_minted: d.cumulative.toString(),
      }));
      return { items, count: items.length, chain, days };
    },
  );
}
