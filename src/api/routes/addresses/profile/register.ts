/** The profile and leaderboard routes of the Addresses API: detail, insights, top/active, top/burners. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext } from '../../../context.ts';
import { addressDetailRoute } from '../detail.ts';
import { insightsRoute } from '../insights.ts';
import { topActiveRoute } from '../top-active.ts';
import { topBurnersRoute } from '../top-burners.ts';

export function addressProfileRoutes(app: Parameters<FastifyPluginAsyncTypebox>[0], ctx: ApiContext): void {
  addressDetailRoute(app, ctx);
  insightsRoute(app, ctx);
  topActiveRoute(app, ctx);
  topBurnersRoute(app, ctx);
}
