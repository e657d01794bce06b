/** GET /api/v1/analytics/supply/entity-distribution: holders and supply per wallet class, and concentration without entities (docs/metrics.md, "Holder population"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { percentOf } from '../../amounts.ts';
import { CACHE_SECONDS, classedHolders, figuresOf, populationRoute, topShares } from './population.ts';

const EntityDistribution = Type.Object({
  chain: Type.String(),
  network: Type.String(),
  holders: Type.Integer(),
  classes: Type.Array(
    Type.Object({ wallet_class: Type.String(), holders: Type.Integer(), supply_pct: Type.Number() }),
    { description: 'Every wallet class with holders, by supply held (descending).' },
  ),
  excl_entities: Type.Object({
    holders: Type.Integer({ description: 'Individual holders (entity classes left out).' }),
    supply_pct_of_total: Type.Number({ description: 'Their balances as a percentage of all holders’.' }),
    top10_pct: Type.Number({ description: 'The ten richest individuals’ share of the individuals’ balances.' }),
    gini: Type.Number(),
    nakamoto: Type.Integer(),
  }),
});

export function entityDistributionRoute(app: RouteApp, ctx: ApiContext): void {
  populationRoute(app, ctx, {
    path: '/analytics/supply/entity-distribution',
    operationId: 'getSupplyEntityDistribution',
    summary: 'Holders and supply per wallet class, and concentration excluding entities (cached 10 minutes)',
    response: EntityDistribution,
    cacheSeconds: CACHE_SECONDS,
    answer: async ({ chain }) => {
      const { classes, individuals } = await classedHolders(ctx, chain);
      const all = [...classes.entries()];
      const supply = all.reduce((s, [, c]) => s + c.balance, 0n);
      const { inputs, shares } = topShares(individuals, [10]);
      const f = figuresOf(inputs);
      return {
        chain,
        network: ctx.network(chain),
        holders: all.reduce((n, [, c]) => n + c.holders, 0),
        classes: all
          .sort(([a, x], [b, y]) => (x.balance === y.balance ? a.localeCompare(b) : x.balance > y.balance ? -1 : 1))
          .map(([walletClass, c]) => ({ wallet_class: walletClass, holders: c.holders, supply_pct: percentOf(c.balance, supply) })),
        excl_entities: {
          holders: f.holders,
          supply_pct_of_total: percentOf(inputs.supply, supply),
          top10_pct: shares[0]!,
          gini: f.gini,
          nakamoto: f.nakamoto,
        },
      };
    },
  });
}
