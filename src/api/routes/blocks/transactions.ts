/** GET /api/v1/{chain}/blocks/{id}/transactions: a block's transactions in block order, one row per recipient. */
import type { ApiContext, RouteApp } from '../../context.ts';
import { TransactionDetail } from '../../schemas/transaction.ts';
import { toTransactionDetail } from '../addresses/feed/rows.ts';
import { listRoute } from '../list-route.ts';
import { prepareBlockList } from './block-list.ts';
import { BlockEchoFields, BlockPathParams } from './params.ts';
import { readBlockTransactions } from './transactions.read.ts';

export function blockTransactionsRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:id/transactions',
    tags: ['blocks'],
    operationId: 'getBlockTransactions',
    summary: 'The transactions of a block, in block order',
    params: BlockPathParams,
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 2 },
    item: TransactionDetail,
    order: 'Block order: by position in the block, then recipient index (a multi-recipient pow transfer has a row per recipient, as in the address feed).',
    totalDescription: 'Rows of the block: one per transaction, or per recipient of a transaction with a recipient list.',
    echo: BlockEchoFields,
    notFound: 'Unknown chain, or no stored block with this id.',
    prepare: (ctx, { params, request }) => prepareBlockList(ctx, request, params.chain, params.id),
    // The block's hash: a cursor of a block that a reorg replaced is not one of its successor's.
    cursorScope: ({ echo }) => `${echo.chain}|${echo.hash}`,
    async read(ctx, { echo, amount }, { limit, after }) {
      const key = after ? ([Number(after[0]), Number(after[1])] as const) : null;
      const { rows, total } = await readBlockTransactions(ctx.store, echo.chain, echo.height, key, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: page.map((row) => toTransactionDetail(row, echo.chain, echo.network, row.from_addr, amount)),
        total,
        hasMore: rows.length > limit,
        lastKey: last ? [last.tx_index, last.ri] : null,
      };
    },
  });
}
