/** Validators (docs/api-validators.md): mounted at /api/v1/pos/validators (pos only; on pow that path is an unknown route). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext } from '../../context.ts';
import { validatorBlocksRoute } from './blocks.ts';
import { validatorDailyRoute } from './daily.ts';
import { validatorDetailRoute } from './detail.ts';
import { validatorListRoute } from './list.ts';
import { validatorWithdrawalsRoute } from './withdrawals.ts';

export function validatorRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Functions of the parameters and the stored data: kept per snapshot, in the Addresses API's share (plugins/snapshot-cache.ts).
    app.addHook('onRoute', (route) => {
      route.config = { snapshotCache: 'addresses', ...route.config };
    });
    validatorListRoute(app, ctx);
    validatorDetailRoute(app, ctx);
    validatorDailyRoute(app, ctx);
    validatorBlocksRoute(app, ctx);
    validatorWithdrawalsRoute(app, ctx);
  };
}
