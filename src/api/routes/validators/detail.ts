/** GET /api/v1/pos/validators/{validator}: a validator by index or public key, with what its history holds. */
import { formatTimestamp } from '../../../time.ts';
import { answerAmounts } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { describeValidatorId, validatorIdParam } from '../../params/validator-id.ts';
import { notFound } from '../../problem.ts';
import { problemResponse, STANDARD_ERRORS } from '../../schemas/common.ts';
import { ValidatorDetail } from '../../schemas/validator.ts';
import { readValidatorDetail } from './detail.read.ts';
import { ValidatorPathParams } from './params.ts';
import { statusGroup, validatorSummary } from './summary.ts';

export const VALIDATOR_NOT_FOUND = 'No stored validator with this index or public key.';

export function validatorDetailRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:validator',
    {
      schema: {
        tags: ['validators'],
        operationId: 'getValidator',
        summary: 'A validator by index or public key',
        params: ValidatorPathParams,
        response: { 200: ValidatorDetail, ...STANDARD_ERRORS, 404: problemResponse(VALIDATOR_NOT_FOUND) },
      },
    },
    async (request) => {
      const id = validatorIdParam(request.params.validator);
      const row = await readValidatorDetail(ctx.store, id);
      if (row === null) throw notFound(`no pos validator with ${describeValidatorId(id)} is stored`);
      const amount = answerAmounts(request.log, 'pos');
      const owner = row.withdrawal_address ?? '';
      return {
        chain: 'pos',
        network: ctx.network('pos'),
        ...validatorSummary(row, amount),
        status_group: statusGroup(row.status),
        updated_at: formatTimestamp(row.updated_ts),
        proposed_blocks: row.proposed_blocks,
        withdrawals_count: row.withdrawals_count,
        withdrawals_total: amount(row.withdrawals_total, owner, 'withdrawals_total', { validator_index: String(row.validator_index) }),
        days: row.days,
        rewards_total: row.rewards_total,
      };
    },
  );
}
