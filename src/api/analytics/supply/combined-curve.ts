/**
 * GET /api/v1/analytics/supply/combined-curve: both chains' coins minted per day and in all, side by
 * side, over their whole history (docs/metrics.md, "Supply").
 */
import { Type } from 'typebox';
import { CHAINS, type ChainId } from '../../../chain/chains.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { Day } from '../../schemas/common.ts';
import { eachDay } from '../../../time.ts';
import { chainEnds, coinsOf, mintedDays, supplyTotals, type MintedDay } from './minted-days.ts';

const CombinedItem = Type.Object({
  day: Day,
  pow_minted_coins: Type.Number({ description: 'pow coins minted that day (block rewards; the genesis allocations on the genesis day).' }),
  pos_minted_coins: Type.Number({ description: 'pos coins minted that day (withdrawals, migration mints; genesis allocations on the genesis day).' }),
  pow_cumulative_coins: Type.Number({ description: 'pow supply at the day’s end (0 before its first indexed day).' }),
  pos_cumulative_coins: Type.Number({ description: 'pos gross minted supply at the day’s end (0 before its first indexed day).' }),
});

const CombinedResponse = Type.Object({
  items: Type.Array(CombinedItem, { description: 'Every UTC day from the earlier chain’s first indexed day to the later chain’s latest block’s day, oldest first.' }),
  count: Type.Integer(),
});

export function supplyCombinedCurveRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/supply/combined-curve',
    operationId: 'getSupplyCombinedCurve',
    summary: 'Both chains’ minted coins per day and cumulative, over the whole history',
    response: CombinedResponse,
    handler: async () => {
      const series = new Map<ChainId, Map<string, MintedDay>>();
      let from: string | null = null;
      let to: string | null = null;
      for (const chain of CHAINS) {
        const ends = await chainEnds(ctx.store, chain);
        if (!ends) continue;
        const totals = await supplyTotals(ctx.store, chain);
        const days = await mintedDays(ctx.store, chain, ends, totals, ends.firstDay, ends.tipDay);
        series.set(chain, new Map(days.map((d) => [d.day, d])));
        if (from === null || ends.firstDay < from) from = ends.firstDay;
        if (to === null || ends.tipDay > to) to = ends.tipDay;
      }
      if (from === null || to === null) return { items: [], count: 0 };
      const items: Array<Type.Static<typeof CombinedItem>> = [];
      // A chain's cumulative figure carries past its latest day (the other chain's tip may be later).
      const last: Record<ChainId, bigint> = { pow: 0n, pos: 0n };
      for (const day of eachDay(from, to)) {
        const figures = {} as Record<ChainId, { minted: number; cumulative: number }>;
        for (const chain of CHAINS) {
          const d = series.get(chain)?.get(day);
          if (d) last[chain] = d.cumulative;
          figures[chain] = { minted: coinsOf(chain, d?.minted ?? 0n), cumulative: coinsOf(chain, last[chain]) };
        }
        items.push({
          day,
          pow_minted_coins: figures.pow.minted,
          pos_minted_coins: figures.pos.minted,
          pow_cumulative_coins: figures.pow.cumulative,
          pos_cumulative_coins: figures.pos.cumulative,
        });
      }
      return { items, count: items.length };
    },
  });
}
