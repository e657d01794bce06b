/** Tokens of a chain, mounted at /api/v1/{chain}/tokens (docs/api-tokens.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext } from '../../context.ts';
import { tokenDailyRoute } from './daily.ts';
import { tokenDetailRoute } from './detail.ts';
import { tokenHoldersRoute } from './holders.ts';
import { tokenListRoute } from './list.ts';
import { tokenTransfersRoute } from './transfers.ts';

export function tokenRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // A function of the parameters and the stored data: kept per database snapshot, in the
    // Addresses API's share (per-item pages, like an address's: plugins/snapshot-cache.ts).
    app.addHook('onRoute', (route) => {
      route.config = { snapshotCache: 'addresses', ...route.config };
    });
    tokenListRoute(app, ctx);
    tokenDetailRoute(app, ctx);
    tokenHoldersRoute(app, ctx);
    tokenTransfersRoute(app, ctx);
    tokenDailyRoute(app, ctx);
  };
}
