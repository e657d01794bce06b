/** GET /api/v1/{chain}/addresses/stats/summary: address population figures of a chain. */
import { Type, type Static } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { ChainPathParams, Nullable, STANDARD_ERRORS } from '../../schemas/common.ts';
import { readActive24h, readAddressCounters } from './stats-summary.read.ts';

const StatsSummaryResponse = Type.Object({
    chain: Type.String(),
    network: Type.String(),
    total_addresses: Nullable(Type.Integer({ description: 'Addresses ever seen on the chain.' })),
    active_24h: Nullable(Type.Integer({ description: 'Addresses whose latest transaction is in the 24 hours ending at the latest block’s time; null before any block is indexed.' })),
    total_address_tx_touches: Type.Integer({ description: 'Sum over addresses of the logical transactions touching each.' }),
});

async function loadStatsSummary(ctx: ApiContext, chain: ChainId): Promise<Static<typeof StatsSummaryResponse>> {
  const [row, active] = await Promise.all([readAddressCounters(ctx.store, chain), readActive24h(ctx.store, chain)]);
  return {
    chain,
    network: ctx.network(chain),
    total_addresses: row?.address_count ?? 0,
    active_24h: active,
    total_address_tx_touches: row?.address_tx_touches ?? 0,
  };
}

export function statsSummaryRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/stats/summary',
    {
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressStatsSummary',
        summary: 'Address population of a chain',
        params: ChainPathParams,
        response: { 200: StatsSummaryResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => loadStatsSummary(ctx, request.params.chain),
  );
}
