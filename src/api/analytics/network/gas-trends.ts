/** GET /api/v1/analytics/network/gas-trends: the pos chain's daily fee burn and base fee (docs/metrics.md, "Fee burn"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { burnSeries } from '../fees/burn-days.ts';

export function gasTrendsRoute(app: RouteApp, ctx: ApiContext): void {
  burnSeries(app, ctx, {
    path: '/analytics/network/gas-trends',
    operationId: 'getGasTrends',
    summary: 'Daily fee burn and mean base fee of the pos chain',
    envelope: { days: Type.Integer({ description: 'Days in the window.' }), chain: Type.String({ description: 'Always pos: pow has no base fee.' }) },
    withGas: false,
  });
}
