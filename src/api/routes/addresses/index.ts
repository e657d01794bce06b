/** Addresses API (spec section 4.1), mounted at /api/v1/{chain}/addresses. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ApiContext } from '../../context.ts';
import { statsSummaryRoute } from './stats-summary.ts';
import { addressActivityRoutes } from './feed/register.ts';
import { addressProfileRoutes } from './profile/register.ts';

export function addressRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    statsSummaryRoute(app, ctx);
    addressActivityRoutes(app, ctx);
    addressProfileRoutes(app, ctx);
  };
}
