/**
 * GET /api/v1/analytics/total_supply: both chains' minted coins, migration legs and blocks per day,
 * in shor (docs/metrics.md, "Supply").
 */
import { Type } from 'typebox';
import { CHAINS, type ChainId } from '../../../chain/chains.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { Amount, Day, WindowQuery } from '../../schemas/common.ts';
import { addDays, eachDay } from '../../../time.ts';
import { windowDaysOf } from '../series.ts';
import { chainEnds, inShor, mintedDays, supplyTotals, type ChainEnds, type MintedDay } from './minted-days.ts';

const TotalSupplyItem = Type.Object({
  day: Day,
  pow_minted_shor: { ...Amount, description: 'pow minted that day: block rewards (the genesis allocations on the genesis day).' },
  pos_minted_shor: { ...Amount, description: 'pos minted that day (withdrawals, migration mints; genesis allocations on the genesis day), planck ÷ 10^9 rounded down.' },
  pow_burned_via_migration_shor: { ...Amount, description: 'Value of the day’s pow migration burns.' },
  pos_minted_via_migration_shor: { ...Amount, description: 'Value of the day’s successful pos migration mints (part of pos_minted_shor), planck ÷ 10^9 rounded down.' },
  pow_block_count: Type.Integer(),
  pos_block_count: Type.Integer(),
});

const TotalSupplyResponse = Type.Object({
  items: Type.Array(TotalSupplyItem, {
    description: 'One item per UTC day, oldest first: the window ends with the later of the two chains’ latest block days, from the earlier chain’s first indexed day at the earliest.',
  }),
  days: Type.Integer({ description: 'The window’s length in days.' }),
});

export function totalSupplyRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/total_supply',
    operationId: 'getTotalSupply',
    summary: 'Both chains’ minted coins, migration burns and mints, and blocks per day (shor)',
    query: Type.Object({ window: WindowQuery('90d', 'Window: whole UTC days ending with the later chain’s latest block’s day (a length rounds up to days)') }),
    response: TotalSupplyResponse,
    handler: async ({ query }) => {
      const days = windowDaysOf(query.window, { fallback: '90d' });
      const ends = new Map<ChainId, ChainEnds>();
      for (const chain of CHAINS) {
        const e = await chainEnds(ctx.store, chain);
        if (e) ends.set(chain, e);
      }
      if (ends.size === 0) return { items: [], days };
      const to = [...ends.values()].reduce((a, e) => (e.tipDay > a ? e.tipDay : a), '');
      const first = [...ends.values()].reduce((a, e) => (e.firstDay < a ? e.firstDay : a), to);
      const start = addDays(to, 1 - days);
      const from = start < first ? first : start;
      const series = new Map<ChainId, Map<string, MintedDay>>();
      for (const [chain, e] of ends) {
        if (e.tipDay < from) continue;
        const chainFrom = from < e.firstDay ? e.firstDay : from;
        const list = await mintedDays(ctx.store, chain, e, await supplyTotals(ctx.store, chain), chainFrom, e.tipDay);
        series.set(chain, new Map(list.map((d) => [d.day, d])));
      }
      const items: Array<Type.Static<typeof TotalSupplyItem>> = [];
      for (const day of eachDay(from, to)) {
        const pow = series.get('pow')?.get(day);
        const pos = series.get('pos')?.get(day);
        items.push({
          day,
          pow_minted_shor: (pow?.minted ?? 0n).toString(),
          pos_minted_shor: inShor('pos', pos?.minted ?? 0n).toString(),
          pow_burned_via_migration_shor: (pow?.migrationBurned ?? 0n).toString(),
          pos_minted_via_migration_shor: inShor('pos', pos?.migrationMinted ?? 0n).toString(),
          pow_block_count: pow?.blockCount ?? 0,
          pos_block_count: pos?.blockCount ?? 0,
        });
      }
      return { items, days };
    },
  });
}
