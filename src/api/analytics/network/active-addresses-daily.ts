/** GET /api/v1/analytics/network/active-addresses-daily: DAU, WAU and MAU per day (docs/metrics.md, "Network activity"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { dayItem, envelope } from '../route.ts';
import { activitySeries } from './active-days.ts';

export function activeAddressesDailyRoute(app: RouteApp, ctx: ApiContext): void {
  activitySeries(app, ctx, {
    path: '/analytics/network/active-addresses-daily',
    operationId: 'getActiveAddressesDaily',
    summary: 'Daily, weekly and monthly active addresses per day',
    window: '90d',
    item: dayItem({
      dau: Type.Integer({ description: 'Distinct addresses sending or receiving a user transaction that day.' }),
      wau: Type.Integer({ description: 'Distinct active addresses over the 7 UTC days ending that day.' }),
      mau: Type.Integer({ description: 'Distinct active addresses over the 30 UTC days ending that day.' }),
    }),
    envelope: envelope('count', 'days', 'chain', 'network'),
    items: (rows) => rows.map(({ day, dau, wau, mau }) => ({ day, dau, wau, mau })),
  });
}
