/** GET /api/v1/analytics/supply/distribution-timeline: concentration of the holders' balances at each day's end (docs/metrics.md, "Holder population"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { distributionInputs } from '../../../rollups/charts/supply/population.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { SeriesQuery, seriesWindow, zeroFill } from '../series.ts';
import { CACHE_SECONDS, cached, figuresOf, holderBalances } from './population.ts';

const TimelineItem = Type.Object({
  day: Day,
  top10_pct: Type.Number(),
  top100_pct: Type.Number(),
  gini: Type.Number(),
  nakamoto: Type.Number(),
  holders: Type.Number(),
  hhi: Type.Number({ description: 'Σ (balance / supply)², 0 to 1.' }),
  palma: Type.Number({ description: 'Share of the richest 10% of holders ÷ share of the poorest 40%.' }),
});

const DistributionTimeline = Type.Object({
  items: Type.Array(TimelineItem, { description: 'One item per UTC day, oldest first; the latest block’s day as it stands.' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  days: Type.Integer(),
});

interface DayRow {
  day: string;
  holders: number;
  supply: string;
  top10: string;
  top100: string;
  pair_diff: string;
  sum_sq: string;
  nakamoto: number;
  palma_top: string;
  palma_bottom: string;
}

const zero = (day: string) => ({ day, top10_pct: 0, top100_pct: 0, gini: 0, nakamoto: 0, holders: 0, hhi: 0, palma: 0 });

export function distributionTimelineRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/supply/distribution-timeline',
    {
      config: { cacheSeconds: CACHE_SECONDS },
      schema: {
        tags: ['analytics'],
        operationId: 'getSupplyDistributionTimeline',
        summary: 'Top-10 and top-100 shares, Gini, Nakamoto, holders, HHI and Palma ratio per day (cached 10 minutes)',
        querystring: SeriesQuery('90d'),
        response: { 200: DistributionTimeline, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await seriesWindow(ctx.store, chain, request.query.window, '90d');
      return cached(ctx, `distribution-timeline:${chain}:${days}:${range?.to}`, CACHE_SECONDS, async () => {
        const envelope = { chain, network: ctx.network(chain), days };
        if (!range) return { items: [], count: 0, ...envelope };
        const rows = await ctx.store.query<DayRow>(
          'analytics.supply.distribution_timeline',
          sql`SELECT day::text AS day, holders, supply::text, top10::text, top100::text, pair_diff::text, sum_sq::text, nakamoto,
                     palma_top::text, palma_bottom::text
              FROM chain_supply_daily WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`,
        );
        const byDay = new Map(rows.map((r) => [r.day, {
          day: r.day,
          ...figuresOf({
            holders: Number(r.holders), supply: BigInt(r.supply), top10: BigInt(r.top10), top100: BigInt(r.top100),
            pairDiff: BigInt(r.pair_diff), sumSq: BigInt(r.sum_sq), nakamoto: Number(r.nakamoto),
            palmaTop: BigInt(r.palma_top), palmaBottom: BigInt(r.palma_bottom),
          }),
        }]));
        // The open day, as it stands at the latest block.
        const { sorted } = await holderBalances(ctx, chain);
        byDay.set(range.to, { day: range.to, ...figuresOf(distributionInputs(sorted)) });
        const items = zeroFill(range, byDay, zero).map(({ day, top10_pct, top100_pct, gini, nakamoto, holders, hhi, palma }) => ({
          day, top10_pct, top100_pct, gini, nakamoto, holders, hhi, palma,
        }));
        return { items, count: items.length, ...envelope };
      });
    },
  );
}
