/** GET /api/v1/analytics/staking/apr-daily: the network's annualised consensus reward rate per day (docs/metrics.md, "Staking"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { percentOf } from '../../amounts.ts';
import { Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { presentDays, STAKING_ITEMS_DESCRIPTION, StakingEnvelope, StakingQuery, stakingDays, stakingWindow } from './staking-days.ts';

const AprItem = Type.Object({
  day: Day,
  apr_pct: Type.Number({ description: '100 × 365 × the day’s net consensus rewards (penalties and initial slashing penalties subtracted) ÷ the stake; negative when penalties exceed rewards.' }),
  rewarded_validators: Type.Integer({ description: 'Validators whose net rewards of the day were positive.' }),
});

const AprResponse = Type.Object({ items: Type.Array(AprItem, { description: STAKING_ITEMS_DESCRIPTION }), ...StakingEnvelope });

export function stakingAprDailyRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/staking/apr-daily',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getStakingAprDaily',
        summary: 'Staking APR per day: the day’s net rewards over the stake, annualised',
        querystring: StakingQuery,
        response: { 200: AprResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await stakingWindow(ctx.store, chain, request.query.window);
      const envelope = { network: ctx.network(chain), window_days: days };
      if (!range) return { items: [], count: 0, ...envelope };
      const items = presentDays(range, await stakingDays(ctx.store, chain, range)).map((d) => ({
        day: d.day,
        apr_pct: percentOf(d.rewards * 365n, d.total_staked),
        rewarded_validators: d.rewarded_validators,
      }));
      return { items, count: items.length, ...envelope };
    },
  );
}
