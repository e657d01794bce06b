/** GET /api/v1/analytics/supply/summary: holders, supply held, the top ten's share and dormant holders (docs/metrics.md, "Holder population"). */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { SENTINELS } from '../../../chain/chains.ts';
import { addDays, dayNumber, formatDay } from '../../../time.ts';
import { DORMANT_DAYS } from '../../../rollups/charts/supply/population.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount } from '../../schemas/common.ts';
import { percentOf } from '../../amounts.ts';
import { chainSpan } from '../series.ts';
import { ageDays, holdersByLastDay, populationRoute, SUMMARY_CACHE_SECONDS } from './population.ts';
import { totalSupply } from '../../../domain/supply.ts';

const Summary = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  holders: Type.Integer(),
  total_supply: Amount,
  top10_supply: Amount,
  top10_pct: Type.Number(),
  dormant_holders_1y: Type.Integer({ description: 'Holders without activity for at least 365 days before the latest block’s day.' }),
  dormant_supply_1y_pct: Type.Number(),
  is_sparse: Type.Boolean({ description: 'The indexed history is shorter than a year (or there are no holders).' }),
});

export function supplySummaryRoute(app: RouteApp, ctx: ApiContext): void {
  populationRoute(app, ctx, {
    path: '/analytics/supply/summary',
    operationId: 'getSupplySummary',
    summary: 'Holders, supply held, the ten richest holders’ share and dormant holders (cached 5 minutes)',
    response: Summary,
    cacheSeconds: SUMMARY_CACHE_SECONDS,
    answer: async ({ chain }) => {
      const head = { chain, network: ctx.network(chain) };
      const span = await chainSpan(ctx.store, chain);
      if (!span) return { ...head, holders: 0, total_supply: '0', top10_supply: '0', top10_pct: 0, dormant_holders_1y: 0, dormant_supply_1y_pct: 0, is_sparse: true };
      const today = formatDay(span.tipTs);
      const [cells, supply, top] = await Promise.all([
        holdersByLastDay(ctx, chain),
        totalSupply(ctx.store, chain),
        ctx.store.query<{ top: string | null }>(
          'analytics.supply.summary.top10',
          sql`SELECT sum(balance)::text AS top FROM (
                SELECT balance FROM address_summary WHERE chain = ${chain} AND balance > 0 AND address <> ALL(${[...SENTINELS[chain]]}::text[])
                ORDER BY balance DESC LIMIT 10) t`,
        ),
      ]);
      let holders = 0;
      const todayNumber = dayNumber(span.tipTs);
      let dormant = 0;
      let dormantSupply = 0n;
      for (const c of cells) {
        holders += c.holders;
        if (ageDays(c, todayNumber) >= DORMANT_DAYS) {
          dormant += c.holders;
          dormantSupply += c.balance;
        }
      }
      const top10 = BigInt(top[0]?.top ?? 0);
      return {
        ...head,
        holders,
        total_supply: supply.toString(),
        top10_supply: top10.toString(),
        top10_pct: percentOf(top10, supply),
        dormant_holders_1y: dormant,
        dormant_supply_1y_pct: percentOf(dormantSupply, supply),
        is_sparse: holders === 0 || formatDay(span.firstTs) > addDays(today, -DORMANT_DAYS),
      };
    },
  });
}
