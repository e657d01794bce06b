/** GET /api/v1/pos/validators/{validator}/withdrawals: the withdrawals paid from a validator, newest first, by cursor. */
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { ValidatorWithdrawal } from '../../schemas/validator.ts';
import { keysetPage, listRoute } from '../list-route.ts';
import { VALIDATOR_LIST } from './validator-list.ts';
import { readValidatorWithdrawals } from './withdrawals.read.ts';

export function validatorWithdrawalsRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:validator/withdrawals',
    operationId: 'getValidatorWithdrawals',
    summary: 'The withdrawals paid from a validator, newest first',
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 2 },
    item: ValidatorWithdrawal,
    order: 'Newest first: by block height, then position in the block, descending.',
    totalDescription: 'Withdrawals paid from the validator in the stored blocks.',
    ...VALIDATOR_LIST,
    async read(ctx, { echo, amount }, { limit, after }) {
      const below = after ? ([Number(after[0]), Number(after[1])] as const) : null;
      const { rows, total } = await readValidatorWithdrawals(ctx.store, echo.index, below, limit + 1);
      const item = (w: (typeof rows)[number]) => ({
        index: w.withdrawal_index,
        height: w.height,
        block_hash: w.block_hash,
        timestamp: formatTimestamp(w.ts),
        address: w.address,
        amount: amount(w.amount, w.address, 'amount', { block_hash: w.block_hash, validator_index: String(echo.index) }),
      });
      return keysetPage(rows, limit, total, item, (w) => [w.height, w.position]);
    },
  });
}
