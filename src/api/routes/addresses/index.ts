/**
 * Addresses API (spec section 4.1), mounted at /api/v1/{chain}/addresses: every route of the group;
 * and the pow addresses' own (docs/api-ots.md) at /api/v1/pow/addresses (on pos those paths are
 * unknown routes).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { activityHeatmapRoute } from './activity-heatmap.ts';
import { balanceHistoryRoute } from './balance-history.ts';
import { counterpartiesRoute } from './counterparties.ts';
import { addressDetailRoute } from './detail.ts';
import { insightsRoute } from './insights.ts';
import { internalTransactionsRoute } from './internal-transactions.ts';
import { multiSigRoute } from './multisig.ts';
import { otsRoute } from './ots.ts';
import { provenanceRoute } from './provenance.ts';
import { slavesRoute } from './slaves.ts';
import { statsSummaryRoute } from './stats-summary.ts';
import { tokenHoldingsRoute } from './token-holdings.ts';
import { topActiveRoute } from './top-active.ts';
import { topBurnersRoute } from './top-burners.ts';
import { transactionsRoute } from './transactions.ts';

/** Every answer is a function of the route's parameters and the stored data: kept per database snapshot, in the Addresses API's share of the budget (plugins/snapshot-cache.ts). */
function keptPerSnapshot(app: RouteApp): void {
  app.addHook('onRoute', (route) => {
    route.config = { snapshotCache: 'addresses', ...route.config };
  });
}

export function addressRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    keptPerSnapshot(app);
    statsSummaryRoute(app, ctx);
    transactionsRoute(app, ctx);
    internalTransactionsRoute(app, ctx);
    counterpartiesRoute(app, ctx);
    balanceHistoryRoute(app, ctx);
    activityHeatmapRoute(app, ctx);
    provenanceRoute(app, ctx);
    slavesRoute(app, ctx);
    tokenHoldingsRoute(app, ctx);
    addressDetailRoute(app, ctx);
    insightsRoute(app, ctx);
    topActiveRoute(app, ctx);
    topBurnersRoute(app, ctx);
  };
}

export function powAddressRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    keptPerSnapshot(app);
    otsRoute(app, ctx);
    multiSigRoute(app, ctx);
  };
}
