/** Analytics API (spec sections 4.2-4.4), mounted at /api/v1 (paths /analytics/… and /pos/fees/burned/…): every route of the group. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext } from '../context.ts';
import { blockSizeRoute } from './blocks/block-size.ts';
import { activeAddressesDailyRoute } from './network/active-addresses-daily.ts';
import { newVsReturningDailyRoute } from './network/new-vs-returning-daily.ts';
import { pageSummaryRoute } from './network/page-summary.ts';
import { userDailyRoute } from './transactions/user-daily.ts';
import { walletCountRoute } from './wallets/wallet-count.ts';

export function analyticsRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    blockSizeRoute(app, ctx);
    activeAddressesDailyRoute(app, ctx);
    newVsReturningDailyRoute(app, ctx);
    walletCountRoute(app, ctx);
    userDailyRoute(app, ctx);
    pageSummaryRoute(app, ctx);
  };
}
