/** Transactions of a chain, mounted at /api/v1/{chain}/transactions (docs/api-transactions.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext } from '../../context.ts';
import { transactionDetailRoute } from './detail.ts';
import { chainTransactionsRoute } from './list.ts';
import { pendingTransactionsRoute } from './pending.ts';

export function transactionRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // A function of the parameters and the stored data: kept per database snapshot, in the
    // Addresses API's share (per-item pages, like an address's: plugins/snapshot-cache.ts).
    app.addHook('onRoute', (route) => {
      route.config = { snapshotCache: 'addresses', ...route.config };
    });
    chainTransactionsRoute(app, ctx);
    // A static segment: Fastify's router matches /pending before the /:hash parameter, whatever the order.
    pendingTransactionsRoute(app, ctx);
    transactionDetailRoute(app, ctx);
  };
}
