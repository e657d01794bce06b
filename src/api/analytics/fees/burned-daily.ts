/** GET /api/v1/pos/fees/burned/daily: the pos chain's daily fee burn, gas and base fee (docs/metrics.md, "Fee burn"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, Nullable, STANDARD_ERRORS, WindowQuery } from '../../schemas/common.ts';
import { chainDays, EMPTY_DAY } from '../chain-days.ts';
import { chainSpan, dayRange, windowDaysOf, zeroFill } from '../series.ts';
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
      const days = windowDaysOf(request.query.window, { fallback: '30d' });
      const span = await chainSpan(ctx.store, 'pos');
      const network = ctx.network('pos');
      if (!span) return { items: [], days, network };
      const range = dayRange(span, days);
      const items = zeroFill(range, await chainDays(ctx.store, 'pos', range), (day) => ({ day, ...EMPTY_DAY })).map((d) => ({
        ...burnDay(d),
        gas_used_total: d.gas_used,
      }));
      return { items, days, network };
    },
  );
}
