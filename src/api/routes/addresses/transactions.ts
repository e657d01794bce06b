/**
 * GET /api/v1/{chain}/addresses/{address}/transactions: the transactions touching an address,
 * newest first, one row per recipient (see feed/keys.ts), by cursor or by offset.
 */
import { Type, type Static } from 'typebox';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import { PAGED_ROWS, type ApiContext, type RouteApp } from '../../context.ts';
import { invalidParam } from '../../problem.ts';
import { AddressPathParams, IntegerQuery, Nullable, StringEnum, STANDARD_ERRORS, AddressEchoFields, TimeRangeQuery } from '../../schemas/common.ts';
import { TransactionDetail } from '../../schemas/transaction.ts';
import { addressEcho, type AddressEcho } from '../../params/address.ts';
import { txTypeParam } from '../../params/tx-type.ts';
import { feedQueryFor, loadFeed, type TimeRange } from './feed/feed.ts';
import { DIRECTIONS, type Direction, type RowKey } from './feed/keys.ts';
import { toTransactionDetail } from './feed/rows.ts';

const TransactionsQuery = Type.Object({
  cursor: Type.Optional(
    Type.String({ maxLength: 512, description: 'Opaque token from a previous next_cursor, passed back unchanged; omitted = newest transaction.' }),
  ),
  // No default for the validator to fill in: whether offset was sent decides the mode. The document
  // states the spec's default (0) through the route's documentedDefaults.
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        `Rows skipped (default 0 when no cursor is given); when given, it takes precedence over cursor. With tx_type, offset + limit must be at most ${PAGED_ROWS} (a 400 names offset): a type filter is paged to any depth by cursor.`,
    }),
  ),
  limit: IntegerQuery({ minimum: 1, maximum: 100, default: 25, description: 'Rows per page (1 to 100).' }),
  direction: Type.Optional(
    StringEnum(DIRECTIONS, {
      default: 'both',
      description: 'in: rows in which the address receives; out: rows of transactions it sends or signs; both (default).',
    }),
  ),
  tx_type: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'Only transactions of this type: pow transfer, coinbase, latticePK, message, token, transfer_token, slave, multi_sig_create, multi_sig_spend, multi_sig_vote; pos transfer, contract_call, contract_create.',
    }),
  ),
  ...TimeRangeQuery('rows'),
});

const TransactionsResponse = Type.Object({
  items: Type.Array(TransactionDetail, { description: 'Newest first: by height, position in the block, then recipient index, descending.' }),
  count: Type.Integer({ description: 'Number of items in this page.' }),
  limit: Type.Integer(),
  offset: Type.Optional(Type.Integer({ description: 'Rows skipped (offset mode); absent in cursor mode.' })),
  next_cursor: Nullable(Type.String({ description: 'Pass back as cursor for the next page; null on the last page.' })),
  has_more: Type.Boolean({ description: 'Whether rows follow this page.' }),
  total: Nullable(
    Type.Integer({ description: 'Logical transactions matching the same filters (a multi-recipient transaction counts once, whatever its rows).' }),
  ),
  direction: StringEnum(DIRECTIONS),
  tx_type: Nullable(Type.String()),
  ...AddressEchoFields,
});

type Query = Static<typeof TransactionsQuery>;

interface Filters {
  direction: Direction;
  txType: string | null;
  range: TimeRange;
}

/** Binds a cursor to everything that selects the rows. */
function cursorScope(echo: AddressEcho, f: Filters): string {
  return ['address-transactions', echo.chain, echo.address, f.direction, f.txType ?? '', f.range.from ?? '', f.range.to ?? ''].join('|');
}

function decodeCursor(ctx: ApiContext, scope: string, token: string): RowKey {
  const position = ctx.cursors.decode(scope, token);
  if (position.length !== 3 || !position.every((part) => typeof part === 'number' && part >= 0)) {
    throw invalidParam('cursor', 'is not a cursor returned by this query; pass next_cursor back unchanged');
  }
  return position as unknown as RowKey;
}

async function loadTransactions(
  ctx: ApiContext,
  echo: AddressEcho,
  query: Query,
  amount: AnswerAmount,
): Promise<Static<typeof TransactionsResponse>> {
  const filters: Filters = {
    direction: query.direction ?? 'both',
    txType: txTypeParam(echo.chain, query.tx_type),
    range: { from: query.time_from ?? null, to: query.time_to ?? null },
  };
  // An offset under a type filter is found by walking the type's rows (no per-day counts per type
  // exist): bounded, so that the walk is. The cursor reaches any depth at constant cost.
  if (query.offset !== undefined && filters.txType !== null && query.offset + query.limit > ctx.tuning.pagedRows) {
    const most = Math.max(0, ctx.tuning.pagedRows - query.limit);
    throw invalidParam('offset', `must be at most ${most} with tx_type and limit ${query.limit} (offset + limit ≤ ${ctx.tuning.pagedRows}); page deeper with cursor (next_cursor)`);
  }
  const scope = cursorScope(echo, filters);
  // Offset mode when an offset is given (it wins over a cursor) or no cursor is.
  const cursor = query.offset === undefined && query.cursor ? decodeCursor(ctx, scope, query.cursor) : null;
  const offset = cursor ? null : (query.offset ?? 0);
  const base = { chain: echo.chain, address: echo.address, direction: filters.direction, txTypes: filters.txType === null ? null : [filters.txType] };
  const echoed = { limit: query.limit, ...(offset === null ? {} : { offset }), direction: filters.direction, tx_type: filters.txType, ...echo };

  const q = await feedQueryFor(ctx.store, base, filters.range);
  if (q === null) return { items: [], count: 0, next_cursor: null, has_more: false, total: 0, ...echoed };
  const { rows, hasMore, total } = await loadFeed(ctx.store, q, filters.range, { limit: query.limit, offset, after: cursor }, ctx.tuning.feed);
  const last = rows.at(-1);
  const items = rows.map((row) => toTransactionDetail(row, echo.chain, echo.network, echo.address, amount));
  return {
    items,
    count: items.length,
    next_cursor: hasMore && last ? ctx.cursors.encode(scope, [last.height, last.tx_index, last.ri]) : null,
    has_more: hasMore,
    total,
    ...echoed,
  };
}

export function transactionsRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:address/transactions',
    {
      // A list: exported as CSV too (plugins/csv.ts), paged by its cursor.
      config: { documentedDefaults: { offset: 0 }, csv: {} },
      schema: {
        tags: ['addresses'],
        operationId: 'getAddressTransactions',
        summary: 'Transactions touching an address, newest first, by cursor or offset',
        params: AddressPathParams,
        querystring: TransactionsQuery,
        response: { 200: TransactionsResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const echo = addressEcho(ctx, request, request.params.chain, request.params.address);
      return loadTransactions(ctx, echo, request.query, answerAmounts(request.log, echo.chain));
    },
  );
}
