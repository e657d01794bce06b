/** GET /api/v1/pos/fees/burned/daily: the pos chain's daily fee burn, gas and base fee (docs/metrics.md, "Fee burn"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Nullable } from '../../schemas/common.ts';
import { burnSeries } from './burn-days.ts';

export function burnedDailyRoute(app: RouteApp, ctx: ApiContext): void {
  burnSeries(app, ctx, {
    path: '/pos/fees/burned/daily',
    operationId: 'getBurnedDaily',
    summary: 'Fees burned per day on pos (base fee × gas used)',
    envelope: { days: Nullable(Type.Integer({ description: 'Days in the window.' })), network: Nullable(Type.String()) },
    withGas: true,
  });
}
