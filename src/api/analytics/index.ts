/** Analytics API (spec sections 4.2-4.4), mounted at /api/v1 (paths /analytics/… and /pos/fees/burned/…): every route of the group. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext } from '../context.ts';
import { blockSizeRoute } from './blocks/block-size.ts';
import { timelineRoute } from './timeline/timeline.ts';

export function analyticsRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    blockSizeRoute(app, ctx);
    timelineRoute(app, ctx);
  };
}
