/** The search across both chains, mounted at /api/v1/search (docs/api-search.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext } from '../../context.ts';
import { searchRoute } from './search.ts';

export function searchRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // A function of q and the stored data: kept per database snapshot, in the Addresses API's
    // share (per-item answers, like an address's: plugins/snapshot-cache.ts).
    app.addHook('onRoute', (route) => {
      route.config = { snapshotCache: 'addresses', ...route.config };
    });
    searchRoute(app, ctx);
  };
}
