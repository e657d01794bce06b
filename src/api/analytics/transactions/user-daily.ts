/** GET /api/v1/analytics/transactions/user-daily: user transactions per day (docs/metrics.md, "Network activity"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { chainDays } from '../chain-days.ts';
import { SeriesQuery, seriesWindow } from '../series.ts';

const UserDailyItem = Type.Object({
  day: Day,
  user_tx_count: Type.Integer({ description: 'Transactions of the day that are not block rewards (coinbase) or pow administration.' }),
});

const UserDailyResponse = Type.Object({
  items: Type.Array(UserDailyItem, { description: 'One item per UTC day, oldest first, from the later of the window start and the first indexed day to the latest block’s day (partial, current to that block).' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  window_days: Type.Integer(),
});

export function userDailyRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/transactions/user-daily',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getUserTransactionsDaily',
        summary: 'User transactions per day',
        querystring: SeriesQuery('30d'),
        response: { 200: UserDailyResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await seriesWindow(ctx.store, chain, request.query.window, '30d');
      const envelope = { chain, network: ctx.network(chain), window_days: days };
      if (!range) return { items: [], count: 0, ...envelope };
      const items = (await chainDays(ctx.store, chain, range)).map((d) => ({ day: d.day, user_tx_count: d.user_tx_count }));
      return { items, count: items.length, ...envelope };
    },
  );
}
