/** GET /api/v1/analytics/network/new-vs-returning-daily: each day's active addresses, first-timers apart (docs/metrics.md, "Network activity"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { dayItem, envelope } from '../route.ts';
import { activitySeries } from './active-days.ts';

export function newVsReturningDailyRoute(app: RouteApp, ctx: ApiContext): void {
  activitySeries(app, ctx, {
    path: '/analytics/network/new-vs-returning-daily',
    operationId: 'getNewVsReturningDaily',
    summary: 'New and returning active addresses per day',
    window: '30d',
    item: dayItem({
      new_addresses: Type.Integer({ description: 'Active addresses whose first user transaction ever is on this day.' }),
      returning_addresses: Type.Integer({ description: 'Active addresses that had a user transaction on an earlier day (DAU − new).' }),
    }),
    envelope: envelope('count', 'days', 'chain', 'network'),
    items: (rows) => rows.map(({ day, dau, new_wallets }) => ({ day, new_addresses: new_wallets, returning_addresses: dau - new_wallets })),
  });
}
