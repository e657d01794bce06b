/** GET /api/v1/analytics/transactions/user-daily: user transactions per day (docs/metrics.md, "Network activity"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { chainDayRows, noBlocks } from '../chain-days.ts';
import { dailySeries, dayItem, envelope, ONE_ITEM_PER_DAY } from '../route.ts';

export function userDailyRoute(app: RouteApp, ctx: ApiContext): void {
  dailySeries(app, ctx, {
    path: '/analytics/transactions/user-daily',
    operationId: 'getUserTransactionsDaily',
    summary: 'User transactions per day',
    window: '30d',
    item: dayItem({
      user_tx_count: Type.Integer({ description: 'Transactions of the day that are not block rewards (coinbase) or pow administration.' }),
    }),
    itemsDescription: `${ONE_ITEM_PER_DAY} (partial, current to that block).`,
    envelope: envelope('count', 'chain', 'network', 'window_days'),
    read: (range, { chain }) => chainDayRows(ctx.store, chain, range),
    missingDay: { zero: noBlocks },
    items: (rows) => rows.map((d) => ({ day: d.day, user_tx_count: d.user_tx_count })),
  });
}
