/** GET /api/v1/analytics/supply/distribution-timeline: concentration of the holders' balances at each day's end (docs/metrics.md, "Holder population"). */
import { Type } from 'typebox';
import { supplyDays } from '../../../rollups/charts/supply/distribution.ts';
import { distributionInputs } from '../../../rollups/charts/supply/population.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { dailySeries, dayItem, envelope } from '../route.ts';
import { CACHE_SECONDS, figuresOf, holderBalances } from './population.ts';

export function distributionTimelineRoute(app: RouteApp, ctx: ApiContext): void {
  dailySeries(app, ctx, {
    path: '/analytics/supply/distribution-timeline',
    operationId: 'getSupplyDistributionTimeline',
    summary: 'Top-10 and top-100 shares, Gini, Nakamoto, holders, HHI and Palma ratio per day (cached 10 minutes)',
    window: '90d',
    item: dayItem({
      top10_pct: Type.Number(),
      top100_pct: Type.Number(),
      gini: Type.Number(),
      nakamoto: Type.Number(),
      holders: Type.Number(),
      hhi: Type.Number({ description: 'Σ (balance / supply)², 0 to 1.' }),
      palma: Type.Number({ description: 'Share of the richest 10% of holders ÷ share of the poorest 40%.' }),
    }),
    itemsDescription: 'One item per UTC day, oldest first; the latest block’s day as it stands.',
    envelope: envelope('count', 'chain', 'network', 'days'),
    cacheSeconds: CACHE_SECONDS,
    read: async (range, { chain }) => {
      const { closed, open } = await supplyDays(ctx.store, chain, range);
      const byDay = new Map([...closed].map(([day, r]) => [day, { day, ...figuresOf(r.inputs) }]));
      // The latest day as it stands, from every holder's balance now.
      if (open) byDay.set(open.to, { day: open.to, ...figuresOf(distributionInputs((await holderBalances(ctx, chain)).sorted)) });
      return byDay;
    },
    missingDay: { zero: (day) => ({ day, top10_pct: 0, top100_pct: 0, gini: 0, nakamoto: 0, holders: 0, hhi: 0, palma: 0 }) },
    items: (rows) => rows.map(({ day, top10_pct, top100_pct, gini, nakamoto, holders, hhi, palma }) => ({ day, top10_pct, top100_pct, gini, nakamoto, holders, hhi, palma })),
  });
}
