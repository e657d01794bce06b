/** GET /api/v1/{chain}/blocks/{id}/transactions: a block's transactions in block order, one row per recipient. */
import type { ApiContext, RouteApp } from '../../context.ts';
import { TransactionDetail } from '../../schemas/transaction.ts';
import { toTransactionDetail } from '../addresses/feed/rows.ts';
import { subjectRowsRoute } from '../subject-list.ts';
import { BLOCK_LIST } from './block-list.ts';
import { readBlockTransactions } from './transactions.read.ts';

export function blockTransactionsRoute(app: RouteApp, ctx: ApiContext): void {
  subjectRowsRoute(app, ctx, BLOCK_LIST, {
    path: '/:id/transactions',
    operationId: 'getBlockTransactions',
    summary: 'The transactions of a block, in block order',
    item: TransactionDetail,
    order: 'Block order: by position in the block, then recipient index (a multi-recipient pow transfer has a row per recipient, as in the address feed).',
    totalDescription: 'Rows of the block: one per transaction, or per recipient of a transaction with a recipient list.',
    key: ['int', 'int'],
    rows: (ctx, { echo }, after, count) => readBlockTransactions(ctx.store, echo.chain, echo.height, after, count),
    toItem: (row, { echo, amount }) => toTransactionDetail(row, echo.chain, echo.network, row.from_addr, amount),
    keyOf: (row) => [row.tx_index, row.ri],
  });
}
