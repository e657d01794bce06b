/** Analytics API (spec sections 4.2-4.4), mounted at /api/v1 (paths /analytics/… and /pos/fees/burned/…): every route of the group. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CHARTS } from '../../rollups/registry.ts';
import type { ApiContext } from '../context.ts';
import { seriesLive } from './live.ts';
import { chartSeries } from './route.ts';
import { burnedSummaryRoute } from './fees/burned-summary.ts';
import { transactionsNormalisedRoute } from './transactions/transactions-normalised.ts';
import { timelineRoute } from './timeline/timeline.ts';
import { dashboardSummaryRoute } from './dashboard/summary.ts';
import { homeHighlightsRoute } from './home/highlights.ts';
import { networkHealthRoute } from './network/health.ts';
import { networkReorgsRoute } from './network/reorgs.ts';
import { networkTpsRoute } from './network/tps.ts';
import { pageSummaryRoute } from './network/page-summary.ts';
import { crossChainHistoryRoute } from './cross-chain/history.ts';
import { supplyOverviewRoute } from './supply/overview.ts';
import { supplyCombinedCurveRoute } from './supply/combined-curve.ts';
import { totalSupplyRoute } from './supply/total-supply.ts';
import { exchangeSummaryRoute } from './exchange/summary.ts';
import { exchangeLargestTransfersRoute } from './exchange/largest-transfers.ts';
import { whalesBiggestRoute } from './whales/biggest.ts';
import { whalesCohortsRoute } from './whales/cohorts.ts';
import { whalesExchangeFlowRoute } from './whales/exchange-flow.ts';
import { whalesLeaderboardRoute } from './whales/leaderboard.ts';
import { whalesMoversRoute } from './whales/movers.ts';
import { whalesSentimentRoute } from './whales/sentiment.ts';
import { whalesSparklinesRoute } from './whales/sparklines.ts';
import { whalesSummaryRoute } from './whales/summary.ts';
import { holdersDistributionRoute } from './supply/holders-distribution.ts';
import { lorenzRoute } from './supply/lorenz.ts';
import { cohortsRoute } from './supply/cohorts.ts';
import { entityDistributionRoute } from './supply/entity-distribution.ts';
import { supplySummaryRoute } from './supply/summary.ts';
import { dormantBucketsRoute } from './supply/dormant-buckets.ts';

export function analyticsRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Every analytics answer is kept per database snapshot unless its route reads the clock.
    app.addHook('onRoute', (route) => {
      route.config = { snapshotCache: true, ...route.config };
    });
    transactionsNormalisedRoute(app, ctx);
    burnedSummaryRoute(app, ctx);
    timelineRoute(app, ctx);
    networkTpsRoute(app, ctx);
    networkReorgsRoute(app, ctx);
    networkHealthRoute(app, ctx);
    dashboardSummaryRoute(app, ctx);
    homeHighlightsRoute(app, ctx);
    pageSummaryRoute(app, ctx);
    crossChainHistoryRoute(app, ctx);
    supplyOverviewRoute(app, ctx);
    supplyCombinedCurveRoute(app, ctx);
    totalSupplyRoute(app, ctx);
    exchangeSummaryRoute(app, ctx);
    exchangeLargestTransfersRoute(app, ctx);
    whalesBiggestRoute(app, ctx);
    whalesLeaderboardRoute(app, ctx);
    whalesSparklinesRoute(app, ctx);
    whalesCohortsRoute(app, ctx);
    whalesExchangeFlowRoute(app, ctx);
    whalesMoversRoute(app, ctx);
    whalesSentimentRoute(app, ctx);
    whalesSummaryRoute(app, ctx);
    holdersDistributionRoute(app, ctx);
    lorenzRoute(app, ctx);
    cohortsRoute(app, ctx);
    entityDistributionRoute(app, ctx);
    supplySummaryRoute(app, ctx);
    dormantBucketsRoute(app, ctx);
    // Every daily series of the spec, declared by its chart.
    const live = seriesLive(ctx);
    for (const chart of CHARTS) chartSeries(app, ctx, chart, live);
  };
}
