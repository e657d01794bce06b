/** GET /api/v1/analytics/block-size: blocks per day and their sizes (docs/metrics.md, "Block size"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount, Day, STANDARD_ERRORS } from '../../schemas/common.ts';
import { chainDays } from '../chain-days.ts';
import { SeriesQuery, seriesWindow } from '../series.ts';

const BlockSizeItem = Type.Object({
  day: Day,
  block_count: Type.Integer(),
  avg_block_size: Type.Integer({ description: 'Mean serialized block size in bytes, rounded down; 0 without blocks.' }),
  max_block_size: Type.Integer({ description: 'Largest block of the day in bytes.' }),
  total_block_size: { ...Amount, description: 'Bytes of all the day’s blocks, as a decimal string.' },
});

const BlockSizeResponse = Type.Object({
  items: Type.Array(BlockSizeItem, { description: 'One item per UTC day, oldest first, from the later of the window start and the first indexed day to the latest block’s day.' }),
  count: Type.Integer(),
  chain: Type.String(),
  network: Type.String(),
  window_days: Type.Integer(),
});

export function blockSizeRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/analytics/block-size',
    {
      schema: {
        tags: ['analytics'],
        operationId: 'getBlockSize',
        summary: 'Blocks per day and their mean, largest and total size',
        querystring: SeriesQuery('30d'),
        response: { 200: BlockSizeResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => {
      const chain = request.query.chain ?? 'pos';
      const { days, range } = await seriesWindow(ctx.store, chain, request.query.window, '30d');
      const envelope = { chain, network: ctx.network(chain), window_days: days };
      if (!range) return { items: [], count: 0, ...envelope };
      const items = (await chainDays(ctx.store, chain, range)).map((d) => ({
        day: d.day,
        block_count: d.block_count,
        avg_block_size: d.block_count > 0 ? Math.floor(d.size_sum / d.block_count) : 0,
        max_block_size: d.size_max,
        total_block_size: String(d.size_sum),
      }));
      return { items, count: items.length, ...envelope };
    },
  );
}
