/** GET /api/v1/{chain}/transactions: the chain's latest transactions, one row per transaction, by cursor. */
import { Type } from 'typebox';
import { TX_TYPES } from '../../../chain/model.ts';
import { answerAmounts } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { ChainPathParams, Nullable } from '../../schemas/common.ts';
import { TransactionDetail } from '../../schemas/transaction.ts';
import { toTransactionDetail } from '../addresses/feed/rows.ts';
import { txTypeParam } from '../../params/tx-type.ts';
import { listRoute } from '../list-route.ts';
import { readChainTransactions } from './list.read.ts';

const TxTypeQuery = {
  tx_type: Type.Optional(
    Type.String({
      maxLength: 64,
      description: `Only transactions of this type: pow ${TX_TYPES.pow.join(', ')}; pos ${TX_TYPES.pos.join(', ')}.`,
    }),
  ),
};

/** A transaction of the chain's list: TransactionDetail for the whole transaction, and how many recipients it has. */
export const ChainTransaction = Type.Object(
  {
    ...TransactionDetail.properties,
    recipient_count: Type.Integer({
      description: 'Recipients of the transaction: more than 1 on a multi-recipient pow transfer, whose to_addr is then null and value the total sent (GET …/transactions/{hash} lists them).',
    }),
  },
  { description: 'A transaction as one row: to_addr and value are the whole transaction\'s; recipient_index is always null.' },
);

export function chainTransactionsRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '',
    tags: ['transactions'],
    operationId: 'getChainTransactions',
    summary: 'The chain\'s latest transactions, newest first, by cursor',
    params: ChainPathParams,
    query: TxTypeQuery,
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 2 },
    item: ChainTransaction,
    order: 'Newest first: by height, then position in the block, descending. One item per transaction.',
    totalDescription: 'Transactions of the chain (of tx_type, when given), from the rollups: exact.',
    echo: { chain: Type.String(), network: Type.String(), tx_type: Nullable(Type.String()) },
    prepare: (ctx, { params, query, request }) => ({
      echo: { chain: params.chain, network: ctx.network(params.chain), tx_type: txTypeParam(params.chain, query.tx_type) },
      amount: answerAmounts(request.log, params.chain),
    }),
    cursorScope: ({ echo }) => `${echo.chain}|${echo.tx_type ?? ''}`,
    async read(ctx, { echo, amount }, { limit, after }) {
      const key = after ? ([Number(after[0]), Number(after[1])] as const) : null;
      const { rows, total } = await readChainTransactions(ctx.store, echo.chain, echo.tx_type, key, limit);
      const page = rows.slice(0, limit);
      const items = page.map((row) => ({
        ...toTransactionDetail({ ...row, ri: 0, recipient_index: null }, echo.chain, echo.network, row.from_addr, amount),
        recipient_count: row.recipient_count,
      }));
      const last = page.at(-1);
      return { items, total, hasMore: rows.length > limit, lastKey: last ? [last.height, last.tx_index] : null };
    },
  });
}
