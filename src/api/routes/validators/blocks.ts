/** GET /api/v1/pos/validators/{validator}/blocks: the blocks a validator proposed, newest first, by cursor. */
import { formatTimestamp } from '../../../time.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { ValidatorProposal } from '../../schemas/validator.ts';
import { listRoute } from '../list-route.ts';
import { readProposals } from './blocks.read.ts';
import { VALIDATOR_NOT_FOUND } from './detail.ts';
import { ValidatorEchoFields, ValidatorPathParams } from './params.ts';
import { prepareValidatorList } from './validator-list.ts';

export function validatorBlocksRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '/:validator/blocks',
    tags: ['validators'],
    operationId: 'getValidatorBlocks',
    summary: 'The blocks a validator proposed, newest first',
    params: ValidatorPathParams,
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 1 },
    item: ValidatorProposal,
    order: 'Newest first: by slot, descending.',
    totalDescription: 'Blocks the validator proposed in the epochs the staking sync has read.',
    echo: ValidatorEchoFields,
    notFound: VALIDATOR_NOT_FOUND,
    prepare: (ctx, { params, request }) => prepareValidatorList(ctx, request, params.validator),
    cursorScope: ({ echo }) => String(echo.index),
    async read(ctx, { echo, amount }, { limit, after }) {
      const { rows, total } = await readProposals(ctx.store, echo.index, after ? Number(after[0]) : null, limit + 1);
      const page = rows.slice(0, limit);
      return {
        items: page.map((row) => {
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
        }),
        total,
        hasMore: rows.length > limit,
        lastKey: page.length > 0 ? [page.at(-1)!.slot] : null,
      };
    },
  });
}
