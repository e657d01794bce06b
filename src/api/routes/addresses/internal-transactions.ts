/**
 * GET /api/v1/{chain}/addresses/{address}/internal-transactions: native value moved by nested
 * call frames (pos) from or to an address, newest first. Disjoint from the transaction feed. Beyond
 * the spec's fields: whether internal transfers are indexed at all (store/internal-transfers.ts).
 */
import sql from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatTimestamp } from '../../../time.ts';
import { AddressPathParams, IntegerQuery, NullableAmount, StringEnum, STANDARD_ERRORS, Timestamp, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho, type AddressEcho } from '../../params/address.ts';
import { INTERNAL_TRANSFER_STATES, readInternalTransfers } from '../../../store/internal-transfers.ts';

const InternalTxQuery = Type.Object({
  page: IntegerQuery({ minimum: 1, default: 1, description: 'Page number, from 1.' }),
  page_size: IntegerQuery({ minimum: 1, maximum: 100, default: 25, description: 'Items per page (1 to 100).' }),
});

const INTERNAL_DIRECTIONS = ['in', 'out', 'self'] as const;

const AddressInternalTxItem = Type.Object({
  height: Type.Integer(),
  block_hash: Type.String(),
  tx_hash: Type.String({ description: 'The transaction whose execution made the transfer.' }),
  trace_address: Type.String({ description: 'Dot-separated path of the call frame in the transaction\'s call tree, e.g. 0.1.' }),
  call_type: Type.String({ description: 'call, create, create2, selfdestruct, ...' }),
  from_addr: Type.String(),
  to_addr: Type.String(),
  value: NullableAmount,
  timestamp: Timestamp,
  direction: StringEnum(INTERNAL_DIRECTIONS, { description: 'in: to the address; out: from it; self: from and to it (listed once).' }),
});

const InternalTxResponse = Type.Object({
  items: Type.Array(AddressInternalTxItem, {
    description: 'Newest block first; within a transaction, frames in descending trace_address order.',
  }),
  count: Type.Integer({ description: 'Number of items in this page.' }),
  total: Type.Integer({ description: 'Internal transfers touching the address (a self-transfer once).' }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total_pages: Type.Integer({ description: 'ceil(total / page_size); 0 when there is nothing.' }),
  ...AddressEchoFields,
  internal_transfers: StringEnum(INTERNAL_TRANSFER_STATES, {
    description: 'indexed; not_indexed when the pos indexer runs without a tracer (--no-traces): the list and total then miss the transfers from internal_transfers_not_indexed_from on; not_applicable on pow.',
  }),
  internal_transfers_not_indexed_from: Type.Union([Type.Integer(), Type.Null()], { description: 'The first height indexed without internal transfers; null when they are indexed.' }),
});

interface FrameRow {
  height: number;
  tx_index: number;
  block_hash: string;
  tx_hash: string;
  trace_address: string;
  call_type: string;
  from_addr: string;
  to_addr: string;
  value: string;
  ts: number;
}

async function loadInternalTxs(
  ctx: ApiContext,
  echo: AddressEcho,
  page: number,
  pageSize: number,
  amount: AnswerAmount,
): Promise<Static<typeof InternalTxResponse>> {
  const coverage = await readInternalTransfers(ctx.store, echo.chain);
  const envelope = { page, page_size: pageSize, ...echo, internal_transfers: coverage.status, internal_transfers_not_indexed_from: coverage.notIndexedFrom };
  if (echo.chain !== 'pos') return { items: [], count: 0, total: 0, total_pages: 0, ...envelope };
  const offset = (page - 1) * pageSize;
  // One statement: the total (the address's summary), and the page: keys first, from the two
  // per-address indexes merged newest first (index-only; a self-transfer once, by Unique), then
  // the page's rows by primary key. A page past the end reads nothing (a one-time filter).
  const found = await ctx.store.query<FrameRow & { total: number | null }>(
    'addresses.internal.page',
    sql`WITH total AS (
          SELECT internal_tx_count AS n FROM address_summary WHERE chain = ${echo.chain} AND address = ${echo.address}
        ),
        page AS (
          SELECT DISTINCT height, tx_index, trace_address FROM (
            (SELECT height, tx_index, trace_address FROM internal_txs
              WHERE chain = ${echo.chain} AND from_addr = ${echo.address}
              ORDER BY height DESC, tx_index DESC, trace_address DESC)
            UNION ALL
            (SELECT height, tx_index, trace_address FROM internal_txs
              WHERE chain = ${echo.chain} AND to_addr = ${echo.address}
              ORDER BY height DESC, tx_index DESC, trace_address DESC)
          ) touching
          WHERE ${offset}::bigint < (SELECT n FROM total)
          ORDER BY height DESC, tx_index DESC, trace_address DESC
          LIMIT ${pageSize} OFFSET ${offset}
        ),
        frames AS (
          SELECT i.height, b.hash AS block_hash, i.tx_hash, i.tx_index, i.trace_address, i.call_type, i.from_addr, i.to_addr, i.value, i.ts
          FROM page p
          JOIN internal_txs i ON i.chain = ${echo.chain} AND i.height = p.height AND i.tx_index = p.tx_index AND i.trace_address = p.trace_address
          JOIN blocks b ON b.chain = i.chain AND b.height = i.height
        )
        SELECT frames.*, (SELECT n FROM total) AS total
        FROM (SELECT 1) AS one LEFT JOIN frames ON true
        ORDER BY frames.height DESC, frames.tx_index DESC, frames.trace_address DESC`,
  );
  const total = found[0]?.total ?? 0;
  const rows = found.filter((r) => r.tx_hash !== null);
  const items = rows.map((r) => ({
    height: r.height,
    block_hash: r.block_hash,
    tx_hash: r.tx_hash,
    trace_address: r.trace_address,
    call_type: r.call_type,
    from_addr: r.from_addr,
    to_addr: r.to_addr,
    value: amount(r.value, echo.address, 'value'),
    timestamp: formatTimestamp(r.ts),
    direction: r.from_addr === r.to_addr ? ('self' as const) : r.from_addr === echo.address ? ('out' as const) : ('in' as const),
  }));
  return { items, count: items.length, total, total_pages: Math.ceil(total / pageSize), ...envelope };
}

export function internalTransactionsRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/internal-transactions',
    {
      // A list: exported as CSV too (plugins/csv.ts).
      config: { csv: {} },
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
      const echo = addressEcho(ctx, request, request.params.chain, request.params.address);
      return loadInternalTxs(ctx, echo, request.query.page, request.query.page_size, answerAmounts(request.log, echo.chain));
    },
  );
}
