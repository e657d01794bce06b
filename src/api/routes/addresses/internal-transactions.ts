/**
 * GET /api/v1/{chain}/addresses/{address}/internal-transactions: native value moved by nested
 * call frames (pos) from or to an address, newest first. Disjoint from the transaction feed. Beyond
 * the spec's fields: whether internal transfers are indexed at all (store/internal-transfers.ts).
 */
import { Type } from 'typebox';
import { answerAmounts } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { formatTimestamp } from '../../../time.ts';
import { AddressPathParams, NullableAmount, StringEnum, Timestamp, AddressEchoFields } from '../../schemas/common.ts';
import { addressEcho } from '../../params/address.ts';
import { listRoute } from '../list-route.ts';
import { readInternalTxs } from './internal-transactions.read.ts';
import { INTERNAL_TRANSFER_STATES, readInternalTransfers } from '../../../store/internal-transfers.ts';

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

export function internalTransactionsRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:address/internal-transactions',
    tags: ['addresses'],
    operationId: 'getAddressInternalTransactions',
    summary: 'Internal (call-frame) native transfers touching an address (pos; empty on pow)',
    params: AddressPathParams,
    paging: { style: 'page', maxSize: 100, defaultSize: 25 },
    item: AddressInternalTxItem,
    order: 'Newest block first; within a transaction, frames in descending trace_address order.',
    totalDescription: 'Internal transfers touching the address (a self-transfer once).',
    echo: {
      ...AddressEchoFields,
      internal_transfers: StringEnum(INTERNAL_TRANSFER_STATES, {
        description: 'indexed; not_indexed when the pos indexer runs without a tracer (--no-traces): the list and total then miss the transfers from internal_transfers_not_indexed_from on; not_applicable on pow.',
      }),
      internal_transfers_not_indexed_from: Type.Union([Type.Integer(), Type.Null()], { description: 'The first height indexed without internal transfers; null when they are indexed.' }),
    },
    prepare: async (ctx, { params, request }) => {
      const address = addressEcho(ctx, request, params.chain, params.address);
      const coverage = await readInternalTransfers(ctx.store, address.chain);
      return {
        echo: { ...address, internal_transfers: coverage.status, internal_transfers_not_indexed_from: coverage.notIndexedFrom },
        amount: answerAmounts(request.log, address.chain),
      };
    },
    async read(ctx, { echo, amount }, { limit, offset }) {
      if (echo.chain !== 'pos') return { items: [], total: 0 };
      const { rows, total } = await readInternalTxs(ctx.store, echo.chain, echo.address, limit, offset ?? 0);
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
      return { items, total };
    },
  });
}
