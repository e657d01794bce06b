/** GET /api/v1/{chain}/blocks/{id}: a block by height or hash, with its confirmations and finality. */
import type { ChainId } from '../../../chain/chains.ts';
import { DEFAULT_MAX_REORG_DEPTH } from '../../../ingest/indexer.ts';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { blockIdParam, describeBlockId } from '../../params/block-id.ts';
import { notFound } from '../../problem.ts';
import { BlockDetail, type BlockDetailType } from '../../schemas/block.ts';
import { problemResponse, STANDARD_ERRORS } from '../../schemas/common.ts';
import { readBlockDetail, type BlockDetailRow } from './detail.read.ts';
import { BlockPathParams } from './params.ts';
import { blockSummary } from './summary.ts';

/**
 * Whether a block can no longer change (docs/api-blocks.md, "Finality"). pow: the indexer rolls
 * back no reorg that leaves the chain more than DEFAULT_MAX_REORG_DEPTH blocks below its tip, so a
 * block with that many confirmations stays. Both: at or below the recorded finalized height. pos
 * without one: unknown.
 */
function isFinalized(chain: ChainId, row: BlockDetailRow, confirmations: number): boolean | null {
  if (row.finalized_height !== null && row.height <= row.finalized_height) return true;
  if (chain === 'pow') return confirmations >= DEFAULT_MAX_REORG_DEPTH.pow;
  return row.finalized_height === null ? null : false;
}

function blockDetail(row: BlockDetailRow, chain: ChainId, network: string, amount: AnswerAmount): BlockDetailType {
  const pos = chain === 'pos';
  const where = { block_hash: row.hash };
  const producer = row.miner ?? '';
  const confirmations = Math.max(0, row.tip_height - row.height);
  return {
    chain,
    network,
    ...blockSummary(row, chain, amount),
    parent_hash: row.parent_hash,
    priority_fees: pos ? amount(row.priority_fees, producer, 'priority_fees', where) : null,
    withdrawals_count: pos ? row.withdrawals_count : null,
    withdrawals_total: pos ? amount(row.withdrawals_total, producer, 'withdrawals_total', where) : null,
    confirmations,
    finalized: isFinalized(chain, row, confirmations),
    proposer_index: pos ? row.proposer_index : null,
  };
}

export function blockDetailRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/:id',
    {
      schema: {
        tags: ['blocks'],
        operationId: 'getBlock',
        summary: 'A block by height or hash',
        params: BlockPathParams,
        response: { 200: BlockDetail, ...STANDARD_ERRORS, 404: problemResponse('Unknown chain, or no stored block with this id.') },
      },
    },
    async (request) => {
      const { chain } = request.params;
      const id = blockIdParam(chain, request.params.id);
      const row = await readBlockDetail(ctx.store, chain, id);
      if (row === null) throw notFound(`no ${chain} block with ${describeBlockId(id)} is stored`);
      return blockDetail(row, chain, ctx.network(chain), answerAmounts(request.log, chain));
    },
  );
}
