/** GET /api/v1/analytics/supply/lorenz: the Lorenz curve of the holders' balances, about 100 points, and Gini (docs/metrics.md, "Holder population"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { distributionInputs } from '../../../rollups/charts/supply/population.ts';
import { envelope } from '../route.ts';
import { CACHE_SECONDS, figuresOf, holderBalances, populationRoute, ratioOf } from './population.ts';

/** Points of the curve after (0, 0): at each hundredth of the holders. */
const STEPS = 100;

export function lorenzRoute(app: RouteApp, ctx: ApiContext): void {
  populationRoute(app, ctx, {
    path: '/analytics/supply/lorenz',
    operationId: 'getSupplyLorenz',
    summary: 'Lorenz curve of holders’ balances, down-sampled to about 100 points, and the Gini coefficient (cached 10 minutes)',
    response: Type.Object({
      ...envelope('chain', 'network'),
      holders: Type.Integer(),
      points: Type.Array(
        Type.Object({
          p_holders: Type.Number({ description: 'Share of holders (0 to 1), poorest first.' }),
          p_supply: Type.Number({ description: 'Share of the supply those holders hold (0 to 1).' }),
        }),
        { description: '(0, 0), then the point at rank ⌈i·n/100⌉ for i = 1 … 100, ending at (1, 1); empty without holders.' },
      ),
      gini: Type.Number(),
    }),
    cacheSeconds: CACHE_SECONDS,
    answer: async ({ chain }) => {
      const { sorted } = await holderBalances(ctx, chain);
      const n = sorted.n;
      const ranks = [...new Set(Array.from({ length: STEPS }, (_, i) => Math.ceil(((i + 1) * n) / STEPS)))];
      const inputs = distributionInputs(sorted, ranks);
      const points = n === 0 ? [] : [
        { p_holders: 0, p_supply: 0 },
        ...ranks.map((r) => ({ p_holders: ratioOf(BigInt(r), BigInt(n)), p_supply: ratioOf(inputs.prefix.get(r)!, inputs.supply) })),
      ];
      return { chain, network: ctx.network(chain), holders: n, points, gini: figuresOf(inputs).gini };
    },
  });
}
