/** GET /api/v1/analytics/supply/holders-distribution: the richest holders' shares, Gini and Nakamoto (docs/metrics.md, "Holder population"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { envelope } from '../route.ts';
import { CACHE_SECONDS, figuresOf, holderBalances, populationRoute, topShares } from './population.ts';

const RANKS = [10, 100, 1_000, 10_000] as const;

export function holdersDistributionRoute(app: RouteApp, ctx: ApiContext): void {
  populationRoute(app, ctx, {
    path: '/analytics/supply/holders-distribution',
    operationId: 'getSupplyHoldersDistribution',
    summary: 'Shares of the top 10, 100, 1,000 and 10,000 holders, Gini and Nakamoto coefficient (cached 10 minutes)',
    response: Type.Object({
      ...envelope('chain', 'network'),
      holders: Type.Integer({ description: 'Addresses with a positive balance at the latest block, sentinels excluded.' }),
      distribution: Type.Array(
        Type.Object({
          bucket: Type.String({ examples: ['top_10'] }),
          rank_threshold: Type.Integer({ description: 'N: the N richest holders.' }),
          pct: Type.Number({ description: 'Their balances as a percentage of all holders’ balances.' }),
        }),
      ),
      gini: Type.Number({ description: 'Gini coefficient of the holders’ balances (0 to 1), exact.' }),
      nakamoto: Type.Integer({ description: 'The fewest holders whose balances exceed half of the supply held.' }),
    }),
    cacheSeconds: CACHE_SECONDS,
    answer: async ({ chain }) => {
      const { sorted } = await holderBalances(ctx, chain);
      const { inputs, shares } = topShares(sorted, [...RANKS]);
      const f = figuresOf(inputs);
      return {
        chain,
        network: ctx.network(chain),
        holders: f.holders,
        distribution: RANKS.map((rank, i) => ({ bucket: `top_${rank}`, rank_threshold: rank, pct: shares[i]! })),
        gini: f.gini,
        nakamoto: f.nakamoto,
      };
    },
  });
}
