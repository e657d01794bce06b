/** GET /api/v1/{chain}/addresses/stats/summary: address population figures of a chain. */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { ChainPathParams, Nullable, STANDARD_ERRORS } from '../../schemas/common.ts';
import { tipTime } from '../../../rollups/shared/tip.ts';
import { windowEndingAt } from '../../../domain/window.ts';
import { DAY_SECONDS } from '../../../time.ts';

const StatsSummaryResponse = Type.Object({
    chain: Type.String(),
    network: Type.String(),
    total_addresses: Nullable(Type.Integer({ description: 'Addresses ever seen on the chain.' })),
    active_24h: Nullable(Type.Integer({ description: 'Addresses whose latest transaction is in the 24 hours ending at the latest block’s time; null before any block is indexed.' })),
    total_address_tx_touches: Type.Integer({ description: 'Sum over addresses of the logical transactions touching each.' }),
});

interface SummaryRow {
  address_count: number | null;
  address_tx_touches: number | null;
}

/**
 * Addresses whose latest transaction is in the 24 hours ending at the latest block (src/domain/window.ts):
 * an address is active in the window exactly when its last activity falls inside it, and the counts
 * per last-activity time are kept with address_summary (migration 0034). No tip, no window: null.
 */
async function active24h(ctx: ApiContext, chain: ChainId): Promise<number | null> {
  const tip = await tipTime(ctx.store, chain, 'addresses.stats_summary.tip');
  if (tip === null) return null;
  const w = windowEndingAt(tip, DAY_SECONDS);
  const [row] = await ctx.store.query<{ active: number }>(
    'addresses.stats_summary.active',
    sql`SELECT coalesce(sum(addresses), 0)::int AS active FROM address_last_seen_counts
        WHERE chain = ${chain} AND last_seen > ${w.after}::bigint AND last_seen <= ${w.upTo}::bigint`,
    { reusePlan: true }, // a range of a small table's primary key: at most a day of block times
  );
  return row?.active ?? 0;
}

async function loadStatsSummary(ctx: ApiContext, chain: ChainId): Promise<Static<typeof StatsSummaryResponse>> {
  const [[row], active] = await Promise.all([
    ctx.store.query<SummaryRow>(
      'addresses.stats_summary',
      sql`SELECT address_count, address_tx_touches FROM chain_stats WHERE chain = ${chain}`,
      { reusePlan: true }, // a key lookup
    ),
    active24h(ctx, chain),
  ]);
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
