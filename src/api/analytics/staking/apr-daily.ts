/** GET /api/v1/analytics/staking/apr-daily: the network's annualised consensus reward rate per day (docs/metrics.md, "Staking"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { percentOf } from '../../amounts.ts';
import { Day } from '../../schemas/common.ts';
import { stakingSeries } from './staking-days.ts';

export function stakingAprDailyRoute(app: RouteApp, ctx: ApiContext): void {
  stakingSeries(app, ctx, {
    path: '/analytics/staking/apr-daily',
    operationId: 'getStakingAprDaily',
    summary: 'Staking APR per day: the day’s net rewards over the stake, annualised',
    item: Type.Object({
      day: Day,
      apr_pct: Type.Number({ description: '100 × 365 × the day’s net consensus rewards (penalties and initial slashing penalties subtracted) ÷ the stake; negative when penalties exceed rewards; 0 without stake.' }),
      rewarded_validators: Type.Integer({ description: 'Validators whose net rewards of the day were positive.' }),
    }),
    items: (rows) => rows.map((d) => ({ day: d.day, apr_pct: percentOf(d.rewards * 365n, d.total_staked), rewarded_validators: d.rewarded_validators })),
  });
}
