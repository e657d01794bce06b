/** GET /api/v1/{chain}/blocks/{id}/transactions: a block's transactions in block order, one row per recipient. */
import type { ApiContext, RouteApp } from '../../context.ts';
import { TransactionDetail } from '../../schemas/transaction.ts';
import { toTransactionDetail } from '../addresses/feed/rows.ts';
import { keysetPage, listRoute } from '../list-route.ts';
import { BLOCK_LIST } from './block-list.ts';
import { readBlockTransactions } from './transactions.read.ts';

export function blockTransactionsRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:id/transactions',
    operationId: 'getBlockTransactions',
    summary: 'The transactions of a block, in block order',
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 2 },
    item: TransactionDetail,
    order: 'Block order: by position in the block, then recipient index (a multi-recipient pow transfer has a row per recipient, as in the address feed).',
    totalDescription: 'Rows of the block: one per transaction, or per recipient of a transaction with a recipient list.',
    ...BLOCK_LIST,
    async read(ctx, { echo, amount }, { limit, after }) {
      const key = after ? ([Number(after[0]), Number(after[1])] as const) : null;
      const { rows, total } = await readBlockTransactions(ctx.store, echo.chain, echo.height, key, limit + 1);
      return keysetPage(rows, limit, total, (row) => toTransactionDetail(row, echo.chain, echo.network, row.from_addr, amount), (row) => [row.tx_index, row.ri]);
    },
  });
}
