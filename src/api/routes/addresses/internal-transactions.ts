/**
 * GET /api/v1/{chain}/addresses/{address}/internal-transactions: native value moved by nested
 * call frames (pos) from or to an address, newest first. Disjoint from the transaction feed.
 */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import type { ApiContext } from '../../context.ts';
import { formatTimestamp } from '../../format.ts';
import { AddressPathParams, Amount, IntegerQuery, StringEnum, STANDARD_ERRORS, Timestamp } from '../../schemas/common.ts';
import { AddressEchoFields, addressEcho, type AddressEcho, type AppArg } from './feed/common.ts';

export const InternalTxQuery = Type.Object({
  page: IntegerQuery({ minimum: 1, default: 1, description: 'Page number, from 1.' }),
  page_size: IntegerQuery({ minimum: 1, maximum: 100, default: 25, description: 'Items per page (1 to 100).' }),
});

export const INTERNAL_DIRECTIONS = ['in', 'out', 'self'] as const;

export const AddressInternalTxItem = Type.Object({
  height: Type.Integer(),
  block_hash: Type.String(),
  tx_hash: Type.String({ description: 'The transaction whose execution made the transfer.' }),
  trace_address: Type.String({ description: 'Dot-separated path of the call frame in the transaction\'s call tree, e.g. 0.1.' }),
  call_type: Type.String({ description: 'call, create, create2, selfdestruct, ...' }),
  from_addr: Type.String(),
  to_addr: Type.String(),
  value: Amount,
  timestamp: Timestamp,
  direction: StringEnum(INTERNAL_DIRECTIONS, { description: 'in: to the address; out: from it; self: from and to it (listed once).' }),
});

export const InternalTxResponse = Type.Object({
  items: Type.Array(AddressInternalTxItem, {
    description: 'Newest block first; within a transaction, frames in descending trace_address order.',
  }),
  count: Type.Integer({ description: 'Number of items in this page.' }),
  total: Type.Integer({ description: 'Internal transfers touching the address (a self-transfer once).' }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total_pages: Type.Integer({ description: 'ceil(total / page_size); 0 when there is nothing.' }),
  ...AddressEchoFields,
});

interface FrameRow {
  height: number;
  block_hash: string;
  tx_hash: string;
  trace_address: string;
  call_type: string;
  from_addr: string;
  to_addr: string;
  value: string;
  ts: number;
}

export async function loadInternalTxs(
  ctx: ApiContext,
  echo: AddressEcho,
  page: number,
  pageSize: number,
): Promise<Static<typeof InternalTxResponse>> {
  const envelope = { page, page_size: pageSize, ...echo };
  if (echo.chain !== 'pos') return { items: [], count: 0, total: 0, total_pages: 0, ...envelope };
  const [summary] = await ctx.store.query<{ n: number }>(
    'addresses.internal.count',
    sql`SELECT internal_tx_count AS n FROM address_summary WHERE chain = ${echo.chain} AND address = ${echo.address}`,
  );
  const total = summary?.n ?? 0;
  const offset = (page - 1) * pageSize;
  // Keys first, from the two per-address indexes merged newest first (index-only), a self-transfer
  // once; then the page's rows by primary key.
  const rows =
    offset >= total
      ? []
      : await ctx.store.query<FrameRow>(
          'addresses.internal.page',
          sql`WITH page AS (
                SELECT DISTINCT height, tx_index, trace_address FROM (
                  (SELECT height, tx_index, trace_address FROM internal_txs
                    WHERE chain = ${echo.chain} AND from_addr = ${echo.address}
                    ORDER BY height DESC, tx_index DESC, trace_address DESC)
                  UNION ALL
                  (SELECT height, tx_index, trace_address FROM internal_txs
                    WHERE chain = ${echo.chain} AND to_addr = ${echo.address}
                    ORDER BY height DESC, tx_index DESC, trace_address DESC)
                ) touching
                ORDER BY height DESC, tx_index DESC, trace_address DESC
                LIMIT ${pageSize} OFFSET ${offset}
              )
              SELECT i.height, b.hash AS block_hash, i.tx_hash, i.trace_address, i.call_type, i.from_addr, i.to_addr, i.value, i.ts
              FROM page p
              JOIN internal_txs i ON i.chain = ${echo.chain} AND i.height = p.height AND i.tx_index = p.tx_index AND i.trace_address = p.trace_address
              JOIN blocks b ON b.chain = i.chain AND b.height = i.height
              ORDER BY p.height DESC, p.tx_index DESC, p.trace_address DESC`,
        );
  const items = rows.map((r) => ({
    height: r.height,
    block_hash: r.block_hash,
    tx_hash: r.tx_hash,
    trace_address: r.trace_address,
    call_type: r.call_type,
    from_addr: r.from_addr,
    to_addr: r.to_addr,
    value: r.value,
    timestamp: formatTimestamp(r.ts),
    direction: r.from_addr === r.to_addr ? ('self' as const) : r.from_addr === echo.address ? ('out' as const) : ('in' as const),
  }));
  return { items, count: items.length, total, total_pages: Math.ceil(total / pageSize), ...envelope };
}

export function internalTransactionsRoute(app: AppArg, ctx: ApiContext): void {
  app.get(
    '/:address/internal-transactions',
    {
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressInternalTransactions',
        summary: 'Internal (call-frame) native transfers touching an address (pos; empty on pow)',
        params: AddressPathParams,
        querystring: InternalTxQuery,
        response: { 200: InternalTxResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const echo = addressEcho(ctx, request.params.chain, request.params.address);
      return loadInternalTxs(ctx, echo, request.query.page, request.query.page_size);
    },
  );
}
