/**
 * GET /api/v1/analytics/cross-chain/history/{address}: the pow-to-pos migration legs of the accounts
 * an address of either chain is linked to, both chains, newest first (docs/metrics.md, "Cross-chain").
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import { parseAddress } from '../../../chain/addresses.ts';
import { CHAIN_INFO, type ChainId } from '../../../chain/chains.ts';
import type { ChainNetwork } from '../../../chain/network.ts';
import { formatTimestamp } from '../../../time.ts';
import { formatUnits } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { analyticsRoute } from '../route.ts';
import { invalidParam } from '../../problem.ts';
import { IntegerQuery, Nullable, Timestamp } from '../../schemas/common.ts';

const MAX_PAGE_SIZE = 200;

const HistoryParams = Type.Object({
  address: Type.String({ description: 'An address of either chain: pow (Q + 78 hex) or pos (Q, Z or 0x + 40 hex; Q + 128 hex on a 64-byte network).' }),
});

const HistoryQuery = Type.Object({
  // The offset, (page − 1) × page_size, stays an exact integer.
  page: IntegerQuery({ minimum: 1, maximum: Math.floor(Number.MAX_SAFE_INTEGER / MAX_PAGE_SIZE), default: 1, description: 'Page number, from 1.' }),
  page_size: IntegerQuery({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 50, description: 'Items per page (1 to 200).' }),
});

const HistoryItem = Type.Object({
  account_id: Type.String({ description: 'The migration account id linking a pow burn to its pos mint.' }),
  chain: Type.String(),
  timestamp: Timestamp,
  height: Type.Integer(),
  tx_hash: Type.String(),
  from_addr: Type.String({ description: 'The burner (pow) or the zero address (pos mint).' }),
  to_addr: Type.String({ description: 'The migration address (pow burn) or the claimant (pos mint).' }),
  value_quanta: Type.String({ description: 'The leg’s amount in coins, an exact decimal string.' }),
  tx_type: Type.String({ description: 'The transaction’s type on its chain.' }),
  migration_role: Type.String({ description: 'burn (pow) or mint (pos).' }),
});

const HistoryResponse = Type.Object({
  items: Type.Array(HistoryItem, { description: 'Migration legs of the accounts linked to the address, both chains, newest first; empty when it has none.' }),
  count: Type.Integer(),
  total: Type.Integer({ description: 'Legs of the linked accounts.' }),
  limit: Type.Integer({ description: 'page_size.' }),
  offset: Type.Integer({ description: '(page − 1) × page_size.' }),
  page: Type.Integer(),
  has_next: Type.Boolean(),
  has_prev: Type.Boolean(),
  next_cursor: Nullable(Type.String({ description: 'Always null: offset paging.' })),
  address: Type.String({ description: 'The address asked about, in canonical form.' }),
});

/** The chain whose form the address has, and its canonical form, or a 400 naming `address`. */
function eitherChainAddress(raw: string, networks: Record<ChainId, ChainNetwork>): { chain: ChainId; address: string } {
  const pos = parseAddress('pos', raw, networks.pos);
  if (pos.ok) return { chain: 'pos', address: pos.address };
  const pow = parseAddress('pow', raw, networks.pow);
  if (pow.ok) return { chain: 'pow', address: pow.address };
  throw invalidParam('address', `is not an address of either chain (pow: ${pow.reason}; pos: ${pos.reason})`);
}

export function crossChainHistoryRoute(app: RouteApp, ctx: ApiContext): void {
  analyticsRoute(app, {
    path: '/analytics/cross-chain/history/:address',
    operationId: 'getCrossChainHistory',
    summary: 'The pow burns and pos mints of the migration accounts linked to an address, newest first',
    params: HistoryParams,
    query: HistoryQuery,
    response: HistoryResponse,
    handler: async ({ query, params, networks }) => {
      const { chain, address } = eitherChainAddress(params.address, networks);
      const { page, page_size: limit } = query;
      const offset = (page - 1) * limit;
      // An address is linked to the accounts it burned for (pow sender) or was minted to (pos recipient).
      const accounts =
        chain === 'pow'
          ? sql`SELECT account_id FROM migration_legs WHERE chain = 'pow' AND from_addr = ${address} AND role = 'burn'`
          : sql`SELECT account_id FROM migration_legs WHERE chain = 'pos' AND to_addr = ${address} AND role = 'mint'`;
      const [rows, [total]] = await Promise.all([
        ctx.store.query<{ account_id: string; chain: ChainId; ts: string | number; height: string | number; tx_hash: string; from_addr: string; to_addr: string; amount: string; tx_type: string; role: string }>(
          'analytics.cross_chain.history',
          sql`SELECT l.account_id, l.chain, l.ts, l.height, l.tx_hash, l.from_addr, l.to_addr, l.amount::text AS amount, t.tx_type, l.role
              FROM migration_legs l JOIN transactions t ON t.chain = l.chain AND t.height = l.height AND t.tx_index = l.tx_index
              WHERE l.account_id IN (${accounts})
              ORDER BY l.ts DESC, l.chain DESC, l.height DESC, l.tx_index DESC
              LIMIT ${limit} OFFSET ${offset}`,
          { reusePlan: true }, // index ranges: the address's legs, then their accounts' legs
        ),
        ctx.store.query<{ n: string | number }>('analytics.cross_chain.total', sql`SELECT count(*) AS n FROM migration_legs WHERE account_id IN (${accounts})`, { reusePlan: true }),
      ]);
      const items = rows.map((r) => ({
        account_id: r.account_id,
        chain: r.chain,
        timestamp: formatTimestamp(Number(r.ts)),
        height: Number(r.height),
        tx_hash: r.tx_hash,
        from_addr: r.from_addr,
        to_addr: r.to_addr,
        value_quanta: formatUnits(r.amount, CHAIN_INFO[r.chain].decimals),
        tx_type: r.tx_type,
        migration_role: r.role,
      }));
      const n = Number(total?.n ?? 0);
      return { items, count: items.length, total: n, limit, offset, page, has_next: offset + items.length < n, has_prev: page > 1, next_cursor: null, address };
    },
  });
}
