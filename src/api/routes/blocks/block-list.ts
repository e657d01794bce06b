/** What the lists of one block's items share: the block the path names, found or a 404, echoed with the answer's amounts. */
import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import type { ListRouteInput } from '../list-route.ts';
import { BlockEchoFields, BlockPathParams, OneChainBlockPathParams } from './params.ts';
import type { ChainId } from '../../../chain/chains.ts';
import { answerAmounts, type AnswerAmount } from '../../amounts.ts';
import type { ApiContext } from '../../context.ts';
import { blockIdParam, describeBlockId } from '../../params/block-id.ts';
import { notFound } from '../../problem.ts';
import { findBlock } from './detail.read.ts';

export interface BlockListContext {
  echo: { chain: ChainId; network: string; height: number; hash: string };
  amount: AnswerAmount;
}

/** The stored block `rawId` names on `chain` (a 400 naming `id` when malformed, a 404 when not stored). */
export async function prepareBlockList(ctx: ApiContext, request: FastifyRequest, chain: ChainId, rawId: string): Promise<BlockListContext> {
  const id = blockIdParam(chain, rawId);
  const block = await findBlock(ctx.store, chain, id);
  if (block === null) throw notFound(`no ${chain} block with ${describeBlockId(id)} is stored`);
  return { echo: { chain, network: ctx.network(chain), height: block.height, hash: block.hash }, amount: answerAmounts(request.log, chain) };
}

/** What every list of one block's items declares alike: the block in the path, echoed, found (or a 404), the cursor bound to its hash. */
export const BLOCK_LIST = {
  tags: ['blocks'],
  params: BlockPathParams,
  echo: BlockEchoFields,
  notFound: 'Unknown chain, or no stored block with this id.',
  prepare: (ctx: ApiContext, { params, request }: ListRouteInput<Static<typeof BlockPathParams>, unknown>) => prepareBlockList(ctx, request, params.chain, params.id),
  // The block's hash: a cursor of a block that a reorg replaced is not one of its successor's.
  cursorScope: ({ echo }: BlockListContext) => `${echo.chain}|${echo.hash}`,
} as const;

/** The same for the lists of one pos block's items (`/pos/blocks/{id}/...`: the chain is in the path), the cursor bound to its hash. */
export const POS_BLOCK_LIST = {
  ...BLOCK_LIST,
  params: OneChainBlockPathParams,
  prepare: (ctx: ApiContext, { params, request }: ListRouteInput<Static<typeof OneChainBlockPathParams>, unknown>) => prepareBlockList(ctx, request, 'pos', params.id),
  cursorScope: ({ echo }: BlockListContext) => echo.hash,
} as const;
