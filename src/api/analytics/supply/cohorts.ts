/** GET /api/v1/analytics/supply/cohorts: holders and supply share per holder tier (docs/metrics.md, "Holder population"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { BooleanQuery, isTrue } from '../../schemas/common.ts';
import { percentOf } from '../../amounts.ts';
import { AnalyticsChain } from '../series.ts';
import { CACHE_SECONDS, classedHolders, holderBalances, populationRoute, tierTotals } from './population.ts';

const Cohorts = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  holders: Type.Integer({ description: 'Holders of the population answered (individuals only when asked).' }),
  cohorts: Type.Array(
    Type.Object({
      cohort: Type.String({ description: 'Holder tier, plankton (lowest) to leviathan.' }),
      holders: Type.Integer(),
      supply_pct: Type.Number({ description: 'The tier’s balances as a percentage of the population’s.' }),
    }),
    { description: 'The ten holder tiers, lowest first.' },
  ),
});

export function cohortsRoute(app: RouteApp, ctx: ApiContext): void {
  populationRoute(app, ctx, {
    path: '/analytics/supply/cohorts',
    operationId: 'getSupplyCohorts',
    summary: 'Holders and supply share per holder tier (cached 10 minutes)',
    query: Type.Object({
      chain: AnalyticsChain,
      individuals_only: BooleanQuery('Leave out entities: protocol, curated exchange wallets and confirmed deposit relays, labelled custodians, treasuries, pools, contracts'),
    }),
    response: Cohorts,
    cacheSeconds: CACHE_SECONDS,
    key: ({ query }) => String(isTrue(query.individuals_only)),
    answer: async ({ query, chain }) => {
      const individuals = isTrue(query.individuals_only);
      const sorted = individuals ? (await classedHolders(ctx, chain)).individuals : (await holderBalances(ctx, chain)).sorted;
      const tiers = tierTotals(chain, sorted);
      return {
        chain,
        network: ctx.network(chain),
        holders: sorted.n,
        cohorts: tiers.map((t) => ({ cohort: t.cohort, holders: t.holders, supply_pct: percentOf(t.balance, t.supply) })),
      };
    },
  });
}
