/** Analytics API (spec sections 4.2-4.4), mounted at /api/v1 (paths /analytics/… and /pos/fees/burned/…): every route of the group. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext } from '../context.ts';
import { blockSizeRoute } from './blocks/block-size.ts';
import { blockTimesRoute } from './blocks/block-times.ts';
import { burnedDailyRoute } from './fees/burned-daily.ts';
import { burnedSummaryRoute } from './fees/burned-summary.ts';
import { feePercentilesRoute } from './fees/fee-percentiles.ts';
import { gasDistributionRoute } from './fees/gas-distribution.ts';
import { gasTrendsRoute } from './network/gas-trends.ts';
import { transactionsByTypeRoute } from './transactions/by-type.ts';
import { transactionsNormalisedRoute } from './transactions/transactions-normalised.ts';
import { timelineRoute } from './timeline/timeline.ts';
import { dashboardSummaryRoute } from './dashboard/summary.ts';
import { homeHighlightsRoute } from './home/highlights.ts';
import { networkHealthRoute } from './network/health.ts';
import { networkReorgsRoute } from './network/reorgs.ts';
import { networkTpsRoute } from './network/tps.ts';
import { activeAddressesDailyRoute } from './network/active-addresses-daily.ts';
import { newVsReturningDailyRoute } from './network/new-vs-returning-daily.ts';
import { pageSummaryRoute } from './network/page-summary.ts';
import { userDailyRoute } from './transactions/user-daily.ts';
import { walletCountRoute } from './wallets/wallet-count.ts';
import { exchangeSummaryRoute } from './exchange/summary.ts';
import { exchangeLargestTransfersRoute } from './exchange/largest-transfers.ts';

export function analyticsRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    blockSizeRoute(app, ctx);
    blockTimesRoute(app, ctx);
    transactionsByTypeRoute(app, ctx);
    transactionsNormalisedRoute(app, ctx);
    feePercentilesRoute(app, ctx);
    gasDistributionRoute(app, ctx);
    gasTrendsRoute(app, ctx);
    burnedDailyRoute(app, ctx);
    burnedSummaryRoute(app, ctx);
    timelineRoute(app, ctx);
    networkTpsRoute(app, ctx);
    networkReorgsRoute(app, ctx);
    networkHealthRoute(app, ctx);
    dashboardSummaryRoute(app, ctx);
    homeHighlightsRoute(app, ctx);
    activeAddressesDailyRoute(app, ctx);
    newVsReturningDailyRoute(app, ctx);
    walletCountRoute(app, ctx);
    userDailyRoute(app, ctx);
    pageSummaryRoute(app, ctx);
    exchangeSummaryRoute(app, ctx);
    exchangeLargestTransfersRoute(app, ctx);
  };
}
