/** GET /api/v1/analytics/supply/curve: a chain's coins minted per day and in all (docs/metrics.md, "Supply"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount } from '../../schemas/common.ts';
import { dailySeries, dayItem, envelope, ONE_ITEM_PER_DAY } from '../route.ts';
import { chainEnds, mintedDays, supplyTotals } from './minted-days.ts';

export function supplyCurveRoute(app: RouteApp, ctx: ApiContext): void {
  dailySeries(app, ctx, {
    path: '/analytics/supply/curve',
    operationId: 'getSupplyCurve',
    summary: 'Coins minted per day and cumulative supply of a chain',
    window: '365d',
    item: dayItem({
      minted_today: { ...Amount, description: 'Minted that day (block rewards; pos withdrawals and migration mints; the genesis allocations on the genesis block’s day), in the chain’s smallest unit.' },
      block_count_today: Type.Integer(),
      cumulative_minted: { ...Amount, description: 'Genesis allocations plus everything minted up to the day’s end (the timeline’s supply).' },
    }),
    itemsDescription: `${ONE_ITEM_PER_DAY}.`,
    envelope: { ...envelope('count', 'chain'), days: Type.Integer({ description: 'The window’s length in days.' }) },
    // Every day: mintedDays zero-fills.
    read: async (range, { chain }) => {
      const ends = await chainEnds(ctx.store, chain);
      const days = ends ? await mintedDays(ctx.store, chain, ends, await supplyTotals(ctx.store, chain), range.from, range.to) : [];
      return new Map(days.map((d) => [d.day, d]));
    },
    missingDay: 'omit',
    items: (rows) =>
      rows.map((d) => ({ day: d.day, minted_today: d.minted.toString(), block_count_today: d.blockCount, cumulative_minted: d.cumulative.toString() })),
  });
}
