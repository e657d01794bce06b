/** GET /api/v1/analytics/wallet-count: new wallets per day and the running count of wallets (docs/metrics.md, "Network activity"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { activeDays, noActivity, walletsBefore } from '../network/active-days.ts';
import { dailySeries, dayItem, envelope, ONE_ITEM_PER_DAY } from '../route.ts';
import { zeroFill } from '../series.ts';

export function walletCountRoute(app: RouteApp, ctx: ApiContext): void {
  dailySeries(app, ctx, {
    path: '/analytics/wallet-count',
    operationId: 'getWalletCount',
    summary: 'New wallets per day and the cumulative wallet count',
    window: '30d',
    item: dayItem({
      new_wallets: Type.Integer({ description: 'Addresses whose first user transaction ever is on this day.' }),
      wallet_count: Type.Integer({ description: 'Distinct addresses with a user transaction on this day or before.' }),
    }),
    itemsDescription: `${ONE_ITEM_PER_DAY} (partial, current to that block).`,
    envelope: envelope('count', 'chain', 'network', 'window_days'),
    // Every day, the running count from the wallets before the range.
    read: async (range, { chain }) => {
      const [rows, before] = await Promise.all([activeDays(ctx.store, chain, range), walletsBefore(ctx.store, chain, range.from)]);
      let total = before;
      return new Map(
        zeroFill(range, rows, noActivity).map(({ day, new_wallets }) => [day, { day, new_wallets, wallet_count: (total += new_wallets) }]),
      );
    },
    missingDay: 'omit',
  });
}
