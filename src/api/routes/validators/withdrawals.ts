/** GET /api/v1/pos/validators/{validator}/withdrawals: the withdrawals paid from a validator, newest first, by cursor. */
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { ValidatorWithdrawal } from '../../schemas/validator.ts';
import { subjectRowsRoute } from '../subject-list.ts';
import { VALIDATOR_LIST } from './validator-list.ts';
import { readValidatorWithdrawals } from './withdrawals.read.ts';

export function validatorWithdrawalsRoute(app: RouteApp, ctx: ApiContext): void {
  subjectRowsRoute(app, ctx, VALIDATOR_LIST, {
    path: '/:validator/withdrawals',
    operationId: 'getValidatorWithdrawals',
    summary: 'The withdrawals paid from a validator, newest first',
    item: ValidatorWithdrawal,
    order: 'Newest first: by block height, then position in the block, descending.',
    totalDescription: 'Withdrawals paid from the validator in the stored blocks.',
    key: ['int', 'int'],
    rows: (ctx, { echo }, below, count) => readValidatorWithdrawals(ctx.store, echo.index, below, count),
    toItem: (w, { echo, amount }) => ({
      index: w.withdrawal_index,
      height: w.height,
      block_hash: w.block_hash,
      timestamp: formatTimestamp(w.ts),
      address: w.address,
      amount: amount(w.amount, w.address, 'amount', { block_hash: w.block_hash, validator_index: String(echo.index) }),
    }),
    keyOf: (w) => [w.height, w.position],
  });
}
