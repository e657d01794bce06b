/** GET /api/v1/analytics/network/new-vs-returning-daily: each day's active addresses, first-timers apart (docs/metrics.md, "Network activity"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { SeriesQuery, seriesWindow, zeroFill } from '../series.ts';
import { activeDays, NO_ACTIVITY } from './active-days.ts';

const NewVsReturningItem = Type.Object({
  day: Day,
  new_addresses: Type.Integer({ description: 'Active addresses whose first user transaction ever is on this day.' }),
  returning_addresses: Type.Integer({ description: 'Active addresses that had a user transaction on an earlier day (DAU − new).' }),
});

const NewVsReturningResponse = Type.Object({
  items: Type.Array(NewVsReturningItem, { description: 'One item per UTC day, oldest first, from the later of the window start and the first indexed day to the latest block’s day (partial, current to that block).' }),
  count: Type.Integer(),
  days: Type.Integer({ description: 'The window in days.' }),
  chain: Type.String(),
  network: Type.String(),
});

export function newVsReturningDailyRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/network/new-vs-returning-daily',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getNewVsReturningDaily',
        summary: 'New and returning active addresses per day',
        querystring: SeriesQuery('30d'),
        response: { 200: NewVsReturningResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await seriesWindow(ctx.store, chain, request.query.window, '30d');
      const envelope = { days, chain, network: ctx.network(chain) };
      if (!range) return { items: [], count: 0, ...envelope };
      const rows = await activeDays(ctx.store, chain, range);
      const items = zeroFill(range, rows, (day) => ({ day, ...NO_ACTIVITY })).map(({ day, dau, new_wallets }) => ({
        day,
        new_addresses: new_wallets,
        returning_addresses: dau - new_wallets,
      }));
      return { items, count: items.length, ...envelope };
    },
  );
}
