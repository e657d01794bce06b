/** GET /api/v1/pos/validators/{validator}/blocks: the blocks a validator proposed, newest first, by cursor. */
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { ValidatorProposal } from '../../schemas/validator.ts';
import { subjectRowsRoute } from '../subject-list.ts';
import { readProposals } from './blocks.read.ts';
import { VALIDATOR_LIST } from './validator-list.ts';

export function validatorBlocksRoute(app: RouteApp, ctx: ApiContext): void {
  subjectRowsRoute(app, ctx, VALIDATOR_LIST, {
    path: '/:validator/blocks',
    operationId: 'getValidatorBlocks',
    summary: 'The blocks a validator proposed, newest first',
    item: ValidatorProposal,
    order: 'Newest first: by slot, descending.',
    totalDescription: 'Blocks the validator proposed in the epochs the staking sync has read.',
    key: ['int'],
    rows: (ctx, { echo }, after, count) => readProposals(ctx.store, echo.index, after?.[0] ?? null, count),
    toItem(row, { echo, amount }) {
      const where = { validator_index: String(echo.index), slot: String(row.slot) };
      return {
        slot: row.slot,
        timestamp: formatTimestamp(row.ts),
        proposer_reward: amount(row.reward, '', 'proposer_reward', where),
        height: row.height,
        hash: row.hash,
        tx_count: row.tx_count,
        fee_recipient: row.miner,
        priority_fees: amount(row.priority_fees, row.miner ?? '', 'priority_fees', where),
      };
    },
    keyOf: (row) => [row.slot],
  });
}
