/** GET /api/v1/analytics/wallet-count: new wallets per day and the running count of wallets (docs/metrics.md, "Network activity"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { activeDays, NO_ACTIVITY, walletsBefore } from '../network/active-days.ts';
import { SeriesQuery, seriesWindow, zeroFill } from '../series.ts';

const WalletCountItem = Type.Object({
  day: Day,
  new_wallets: Type.Integer({ description: 'Addresses whose first user transaction ever is on this day.' }),
  wallet_count: Type.Integer({ description: 'Distinct addresses with a user transaction on this day or before.' }),
});

const WalletCountResponse = Type.Object({
  items: Type.Array(WalletCountItem, { description: 'One item per UTC day, oldest first, from the later of the window start and the first indexed day to the latest block’s day (partial, current to that block).' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  window_days: Type.Integer(),
});

export function walletCountRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/wallet-count',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getWalletCount',
        summary: 'New wallets per day and the cumulative wallet count',
        querystring: SeriesQuery('30d'),
        response: { 200: WalletCountResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await seriesWindow(ctx.store, chain, request.query.window, '30d');
      const envelope = { chain, network: ctx.network(chain), window_days: days };
      if (!range) return { items: [], count: 0, ...envelope };
      const [rows, before] = await Promise.all([activeDays(ctx.store, chain, range), walletsBefore(ctx.store, chain, range.from)]);
      let total = before;
      const items = zeroFill(range, rows, (day) => ({ day, ...NO_ACTIVITY })).map(({ day, new_wallets }) => {
        total += new_wallets;
        return { day, new_wallets, wallet_count: total };
      });
      return { items, count: items.length, ...envelope };
    },
  );
}
