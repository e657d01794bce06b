/** GET /api/v1/{chain}/addresses/stats/summary: address population figures of a chain. */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { ChainPathParams, Nullable, STANDARD_ERRORS } from '../../schemas/common.ts';
import { tipTimeSql } from '../../../rollups/tip.ts';

const StatsSummaryResponse = Type.Object({
    chain: Type.String(),
    network: Type.String(),
    total_addresses: Nullable(Type.Integer({ description: 'Addresses ever seen on the chain.' })),
    active_24h: Nullable(Type.Integer({ description: 'Addresses with a transaction in the 24 hours up to the latest indexed block; null before any block is indexed.' })),
    total_address_tx_touches: Type.Integer({ description: 'Sum over addresses of the logical transactions touching each.' }),
});

interface SummaryRow {
  address_count: number | null;
  address_tx_touches: number | null;
  active_24h: number | null;
}

async function loadStatsSummary(ctx: ApiContext, chain: ChainId): Promise<Static<typeof StatsSummaryResponse>> {
  // An address is active in the window exactly when its last activity falls inside it; the counts
  // per last-activity time are kept with address_summary (migration 0034). No tip, no window: null.
  const [row] = await ctx.store.query<SummaryRow>(
    'addresses.stats_summary',
    sql`SELECT s.address_count, s.address_tx_touches,
               CASE WHEN tip.ts IS NOT NULL THEN
                 (SELECT coalesce(sum(addresses), 0)::int FROM address_last_seen_counts
                  WHERE chain = ${chain} AND last_seen > tip.ts - 86400)
               END AS active_24h
        FROM (SELECT ${tipTimeSql(chain)} AS ts) AS tip
        LEFT JOIN chain_stats s ON s.chain = ${chain}`,
    { reusePlan: true }, // key lookups and a range of a small table's index
  );
  return {
    chain,
    network: ctx.network(chain),
    total_addresses: row?.address_count ?? 0,
    active_24h: row?.active_24h ?? null,
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
