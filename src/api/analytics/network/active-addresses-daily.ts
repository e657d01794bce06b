/** GET /api/v1/analytics/network/active-addresses-daily: DAU, WAU and MAU per day (docs/metrics.md, "Network activity"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { SeriesQuery, seriesWindow, zeroFill } from '../series.ts';
import { activeDays, NO_ACTIVITY } from './active-days.ts';

const ActiveAddressesItem = Type.Object({
  day: Day,
  dau: Type.Integer({ description: 'Distinct addresses sending or receiving a user transaction that day.' }),
  wau: Type.Integer({ description: 'Distinct active addresses over the 7 UTC days ending that day.' }),
  mau: Type.Integer({ description: 'Distinct active addresses over the 30 UTC days ending that day.' }),
});

const ActiveAddressesResponse = Type.Object({
  items: Type.Array(ActiveAddressesItem, { description: 'One item per UTC day, oldest first, from the later of the window start and the first indexed day to the latest block’s day (partial, current to that block).' }),
  count: Type.Integer(),
  days: Type.Integer({ description: 'The window in days.' }),
  chain: Type.String(),
  network: Type.String(),
});

export function activeAddressesDailyRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/network/active-addresses-daily',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getActiveAddressesDaily',
        summary: 'Daily, weekly and monthly active addresses per day',
        querystring: SeriesQuery('90d'),
        response: { 200: ActiveAddressesResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await seriesWindow(ctx.store, chain, request.query.window, '90d');
      const envelope = { days, chain, network: ctx.network(chain) };
      if (!range) return { items: [], count: 0, ...envelope };
      const rows = await activeDays(ctx.store, chain, range);
      const items = zeroFill(range, rows, (day) => ({ day, ...NO_ACTIVITY })).map(({ day, dau, wau, mau }) => ({ day, dau, wau, mau }));
      return { items, count: items.length, ...envelope };
    },
  );
}
