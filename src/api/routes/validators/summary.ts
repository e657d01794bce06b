/** A stored validator as the validator routes answer it (schemas/validator.ts). */
import type { AnswerAmount } from '../../amounts.ts';
import type { ValidatorSummaryType } from '../../schemas/validator.ts';
import type { ValidatorRow } from './list.read.ts';

/** The summary of `row`; amounts are logged under the withdrawal address (or the validator) and its index. */
export function validatorSummary(row: ValidatorRow, amount: AnswerAmount): ValidatorSummaryType {
  const owner = row.withdrawal_address ?? '';
  const where = { validator_index: String(row.validator_index) };
  return {
    index: row.validator_index,
    pubkey: row.pubkey,
    status: row.status,
    balance: amount(row.balance, owner, 'balance', where),
    effective_balance: amount(row.effective_balance, owner, 'effective_balance', where),
    withdrawal_address: row.withdrawal_address,
    activation_epoch: row.activation_epoch,
    exit_epoch: row.exit_epoch,
    slashed: row.slashed,
  };
}

/** A status's group, as the beacon API's status filter groups them: its first word. */
export function statusGroup(status: string): string {
  return status.split('_')[0]!;
}
