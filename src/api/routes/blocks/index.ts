/**
 * Blocks (docs/api-blocks.md): mounted at /api/v1/{chain}/blocks, and the pos-only withdrawals at
 * /api/v1/pos/blocks (on pow that path is an unknown route).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { blockDetailRoute } from './detail.ts';
import { blockListRoute } from './list.ts';
import { blockTransactionsRoute } from './transactions.ts';
import { blockWithdrawalsRoute } from './withdrawals.ts';

/** Answers are functions of the parameters and the stored data: kept per snapshot, in the Addresses API's share (plugins/snapshot-cache.ts). */
function keptPerSnapshot(app: RouteApp): void {
  app.addHook('onRoute', (route) => {
    route.config = { snapshotCache: 'addresses', ...route.config };
  });
}

export function blockRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    keptPerSnapshot(app);
    blockListRoute(app, ctx);
    blockDetailRoute(app, ctx);
    blockTransactionsRoute(app, ctx);
  };
}

export function posBlockRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    keptPerSnapshot(app);
    blockWithdrawalsRoute(app, ctx);
  };
}
