/** GET /api/v1/analytics/staking/slashings-daily: validators slashed per day, zero-filled (docs/metrics.md, "Staking"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { zeroFill } from '../series.ts';
import { STAKING_ITEMS_DESCRIPTION, StakingEnvelope, StakingQuery, stakingDays, stakingWindow } from './staking-days.ts';

const SlashingsItem = Type.Object({
  day: Day,
  slashings: Type.Integer({ description: 'Validators whose slashed flag turned true that day; 0 on a day without.' }),
});

const SlashingsResponse = Type.Object({ items: Type.Array(SlashingsItem, { description: STAKING_ITEMS_DESCRIPTION }), ...StakingEnvelope });

export function stakingSlashingsDailyRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/staking/slashings-daily',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getStakingSlashingsDaily',
        summary: 'Validators slashed per day',
        querystring: StakingQuery,
        response: { 200: SlashingsResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await stakingWindow(ctx.store, chain, request.query.window);
      const envelope = { network: ctx.network(chain), window_days: days };
      if (!range) return { items: [], count: 0, ...envelope };
      const rows = await stakingDays(ctx.store, chain, range);
      const items = zeroFill(range, rows, (day) => ({ day, slashings: 0 })).map(({ day, slashings }) => ({ day, slashings }));
      return { items, count: items.length, ...envelope };
    },
  );
}
