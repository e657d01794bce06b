/** GET /api/v1/{chain}/blocks: the chain's blocks, newest first, by cursor, filtered by producer and time. */
import { Type } from 'typebox';
import { answerAmounts } from '../../amounts.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { addressParam } from '../../params/address.ts';
import { BlockSummary } from '../../schemas/block.ts';
import { ChainPathParams, Nullable, TimeRangeQuery } from '../../schemas/common.ts';
import { heightRangeOf } from '../height-range.read.ts';
import { listRoute } from '../list-route.ts';
import { readBlocks } from './list.read.ts';
import { blockSummary } from './summary.ts';

const BlocksQuery = {
  producer: Type.Optional(
    Type.String({ maxLength: 200, description: 'Only blocks of this producer (pow: the coinbase recipient; pos: the fee recipient), an address of the chain in any accepted form.' }),
  ),
  ...TimeRangeQuery('blocks'),
};

export function blockListRoute(app: RouteApp, ctx: ApiContext): void {
  listRoute(app, ctx, {
    path: '',
    tags: ['blocks'],
    operationId: 'getBlocks',
    summary: 'The chain\'s blocks, newest first',
    params: ChainPathParams,
    query: BlocksQuery,
    paging: { style: 'cursor', maxLimit: 100, defaultLimit: 25, keyLength: 1 },
    item: BlockSummary,
    order: 'Newest first: by height, descending.',
    totalDescription: 'Blocks of the chain when no filter is given (the chain\'s block count); null with producer, time_from or time_to, which are not counted.',
    echo: {
      chain: Type.String(),
      network: Type.String(),
      producer: Nullable(Type.String({ description: 'The producer filter, in canonical form; null without one.' })),
      time_from: Nullable(Type.Integer()),
      time_to: Nullable(Type.Integer()),
    },
    prepare: (ctx, { params, query, request }) => {
      const { chain } = params;
      const producer = query.producer === undefined || query.producer === '' ? null : addressParam(request, chain, query.producer, 'producer');
      return {
        echo: { chain, network: ctx.network(chain), producer, time_from: query.time_from ?? null, time_to: query.time_to ?? null },
        amount: answerAmounts(request.log, chain),
      };
    },
    cursorScope: ({ echo }) => [echo.chain, echo.producer ?? '', echo.time_from ?? '', echo.time_to ?? ''].join('|'),
    async read(ctx, { echo, amount }, { limit, after }) {
      const { chain, producer } = echo;
      const heights = await heightRangeOf(ctx.store, chain, { from: echo.time_from, to: echo.time_to });
      if (heights === null) return { items: [], total: null, hasMore: false, lastKey: null };
      const below = after ? Number(after[0]) : null;
      const { rows, total } = await readBlocks(ctx.store, { chain, producer, heights, below, limit: limit + 1 });
      const page = rows.slice(0, limit);
      return { items: page.map((row) => blockSummary(row, chain, amount)), total, hasMore: rows.length > limit, lastKey: page.length > 0 ? [page.at(-1)!.height] : null };
    },
  });
}
