/** GET /api/v1/analytics/block-size: blocks per day and their sizes (docs/metrics.md, "Block size"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Amount } from '../../schemas/common.ts';
import { chainDayRows, noBlocks } from '../chain-days.ts';
import { dailySeries, dayItem, envelope, ONE_ITEM_PER_DAY } from '../route.ts';

export function blockSizeRoute(app: RouteApp, ctx: ApiContext): void {
  dailySeries(app, ctx, {
    path: '/analytics/block-size',
    operationId: 'getBlockSize',
    summary: 'Blocks per day and their mean, largest and total size',
    window: '30d',
    item: dayItem({
      block_count: Type.Integer(),
      avg_block_size: Type.Integer({ description: 'Mean serialized block size in bytes, rounded down; 0 without blocks.' }),
      max_block_size: Type.Integer({ description: 'Largest block of the day in bytes.' }),
      total_block_size: { ...Amount, description: 'Bytes of all the day’s blocks, as a decimal string.' },
    }),
    itemsDescription: `${ONE_ITEM_PER_DAY}.`,
    envelope: envelope('count', 'chain', 'network', 'window_days'),
    read: (range, { chain }) => chainDayRows(ctx.store, chain, range),
    missingDay: { zero: noBlocks },
    items: (rows) =>
      rows.map((d) => ({
        day: d.day,
        block_count: d.block_count,
        avg_block_size: d.block_count > 0 ? Math.floor(d.size_sum / d.block_count) : 0,
        max_block_size: d.size_max,
        total_block_size: String(d.size_sum),
      })),
  });
}
