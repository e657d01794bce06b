/** GET /api/v1/pos/fees/burned/daily: the pos chain's daily fee burn, gas and base fee (docs/metrics.md, "Fee burn"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, Nullable, STANDARD_ERRORS, WindowQuery } from '../../schemas/common.ts';
import { chainDays } from '../chain-days.ts';
import { seriesWindow } from '../series.ts';
import { BurnDayFields, burnDay } from './burn-days.ts';

const BurnedDailyResponse = Type.Object({
  items: Type.Array(
    Type.Object({ ...BurnDayFields, gas_used_total: { ...Amount, description: 'Gas used by the day’s blocks, as a decimal string.' } }),
    { description: 'One item per UTC day, oldest first, to the latest block’s day.' },
  ),
  days: Nullable(Type.Integer({ description: 'Days in the window.' })),
  network: Nullable(Type.String()),
});

export function burnedDailyRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/pos/fees/burned/daily',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getBurnedDaily',
        summary: 'Fees burned per day on pos (base fee × gas used)',
        querystring: Type.Object({ window: WindowQuery('30d', 'Window: whole UTC days ending with the latest block’s day') }),
        response: { 200: BurnedDailyResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const { days, range } = await seriesWindow(ctx.store, 'pos', request.query.window, '30d');
      const network = ctx.network('pos');
      if (!range) return { items: [], days, network };
      const items = (await chainDays(ctx.store, 'pos', range)).map((d) => ({
        ...burnDay(d),
        gas_used_total: d.gas_used,
      }));
      return { items, days, network };
    },
  );
}
