/** GET /api/v1/analytics/staking/slashings-daily: validators slashed per day, zero-filled (docs/metrics.md, "Staking"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day } from '../../schemas/common.ts';
import { stakingSeries } from './staking-days.ts';

export function stakingSlashingsDailyRoute(app: RouteApp, ctx: ApiContext): void {
  stakingSeries(app, ctx, {
    path: '/analytics/staking/slashings-daily',
    operationId: 'getStakingSlashingsDaily',
    summary: 'Validators slashed per day',
    item: Type.Object({ day: Day, slashings: Type.Integer({ description: 'Validators whose slashed flag turned true that day; 0 on a day without.' }) }),
    items: (rows) => rows.map(({ day, slashings }) => ({ day, slashings })),
  });
}
