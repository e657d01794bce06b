/** GET /api/v1/analytics/network/gas-trends: the pos chain's daily fee burn and base fee (docs/metrics.md, "Fee burn"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { STANDARD_ERRORS, WindowQuery } from '../../schemas/common.ts';
import { chainDays } from '../chain-days.ts';
import { BurnDayFields, burnDay } from '../fees/burn-days.ts';
import { seriesWindow } from '../series.ts';

const GasTrendsResponse = Type.Object({
  items: Type.Array(Type.Object(BurnDayFields), { description: 'One item per UTC day of the pos chain, oldest first, to the latest block’s day.' }),
  days: Type.Integer({ description: 'Days in the window.' }),
  chain: Type.String({ description: 'Always pos: pow has no base fee.' }),
});

export function gasTrendsRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/network/gas-trends',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getGasTrends',
        summary: 'Daily fee burn and mean base fee of the pos chain',
        querystring: Type.Object({ window: WindowQuery('30d', 'Window: whole UTC days ending with the latest block’s day') }),
        response: { 200: GasTrendsResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const { days, range } = await seriesWindow(ctx.store, 'pos', request.query.window, '30d');
      if (!range) return { items: [], days, chain: 'pos' };
      const items = (await chainDays(ctx.store, 'pos', range)).map(burnDay);
      return { items, days, chain: 'pos' };
    },
  );
}
