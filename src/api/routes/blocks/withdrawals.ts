/** GET /api/v1/pos/blocks/{id}/withdrawals: the consensus-layer withdrawals a pos block credits (pos only). */
import type { ApiContext, RouteApp } from '../../context.ts';
import { Withdrawal } from '../../schemas/block.ts';
import { subjectRowsRoute } from '../subject-list.ts';
import { POS_BLOCK_LIST } from './block-list.ts';
import { readWithdrawals } from './withdrawals.read.ts';

export function blockWithdrawalsRoute(app: RouteApp, ctx: ApiContext): void {
  subjectRowsRoute(app, ctx, POS_BLOCK_LIST, {
    path: '/:id/withdrawals',
    operationId: 'getBlockWithdrawals',
    summary: 'The withdrawals credited in a pos block, in block order',
    item: Withdrawal,
    order: 'Block order (the order of the payload\'s withdrawals list).',
    totalDescription: 'Withdrawals of the block.',
    key: ['int'],
    rows: (ctx, { echo }, after, count) => readWithdrawals(ctx.store, 'pos', echo.height, after?.[0] ?? null, count),
    toItem: (w, { echo, amount }) => ({
      index: w.withdrawal_index,
      validator_index: w.validator_index,
      address: w.address,
      amount: amount(w.amount, w.address, 'amount', { block_hash: echo.hash }),
    }),
    keyOf: (w) => [w.position],
  });
}
