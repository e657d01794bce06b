/** GET /api/v1/pos/blocks/{id}/withdrawals: the consensus-layer withdrawals a pos block credits (pos only). */
import type { ApiContext, RouteApp } from '../../context.ts';
import { Withdrawal } from '../../schemas/block.ts';
import { keysetPage, listRoute } from '../list-route.ts';
import { prepareBlockList } from './block-list.ts';
import { BlockEchoFields, OneChainBlockPathParams } from './params.ts';
import { readWithdrawals } from './withdrawals.read.ts';

export function blockWithdrawalsRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:id/withdrawals',
    tags: ['blocks'],
    operationId: 'getBlockWithdrawals',
    summary: 'The withdrawals credited in a pos block, in block order',
    params: OneChainBlockPathParams,
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 1 },
    item: Withdrawal,
    order: 'Block order (the order of the payload\'s withdrawals list).',
    totalDescription: 'Withdrawals of the block.',
    echo: BlockEchoFields,
    notFound: 'Unknown chain, or no stored block with this id.',
    prepare: (ctx, { params, request }) => prepareBlockList(ctx, request, 'pos', params.id),
    cursorScope: ({ echo }) => echo.hash,
    async read(ctx, { echo, amount }, { limit, after }) {
      const { rows, total } = await readWithdrawals(ctx.store, 'pos', echo.height, after ? Number(after[0]) : null, limit + 1);
      const item = (w: (typeof rows)[number]) => ({
        index: w.withdrawal_index,
        validator_index: w.validator_index,
        address: w.address,
        amount: amount(w.amount, w.address, 'amount', { block_hash: echo.hash }),
      });
      return keysetPage(rows, limit, total, item, (w) => [w.position]);
    },
  });
}
