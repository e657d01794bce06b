/** Analytics API (spec sections 4.2-4.4), mounted at /api/v1 (paths /analytics/… and /pos/fees/burned/…): every route of the group. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext } from '../context.ts';
import { blockSizeRoute } from './blocks/block-size.ts';
import { dashboardSummaryRoute } from './dashboard/summary.ts';
import { homeHighlightsRoute } from './home/highlights.ts';
import { networkHealthRoute } from './network/health.ts';
import { networkReorgsRoute } from './network/reorgs.ts';
import { networkTpsRoute } from './network/tps.ts';

export function analyticsRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    blockSizeRoute(app, ctx);
    networkTpsRoute(app, ctx);
    networkReorgsRoute(app, ctx);
    networkHealthRoute(app, ctx);
    dashboardSummaryRoute(app, ctx);
    homeHighlightsRoute(app, ctx);
  };
}
