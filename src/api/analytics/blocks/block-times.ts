/** GET /api/v1/analytics/block-times: blocks per day and the mean interval between them (docs/metrics.md, "Block times"). */
import { Type } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { Nullable } from '../../schemas/common.ts';
import { chainDayRows, noBlocks } from '../chain-days.ts';
import { dailySeries, dayItem, envelope, ONE_ITEM_PER_DAY } from '../route.ts';

export function blockTimesRoute(app: RouteApp, ctx: ApiContext): void {
  dailySeries(app, ctx, {
    path: '/analytics/block-times',
    operationId: 'getBlockTimes',
    summary: 'Blocks per day and the mean block interval',
    window: '30d',
    item: dayItem({
      block_count: Type.Integer(),
      avg_block_time_seconds: Nullable(Type.Number({ description: 'Mean seconds from each block of the day to its parent; null without an interval (no block, or only the genesis block).' })),
    }),
    itemsDescription: `${ONE_ITEM_PER_DAY}.`,
    envelope: envelope('count', 'chain', 'network', 'window_days'),
    read: (range, { chain }) => chainDayRows(ctx.store, chain, range),
    missingDay: { zero: noBlocks },
    items: (rows, _range, { span }) =>
      rows.map((d) => {
        // The chain's first block has no parent, hence no interval.
        const intervals = d.block_count - (d.day === span.first ? 1 : 0);
        return { day: d.day, block_count: d.block_count, avg_block_time_seconds: intervals > 0 ? d.interval_sum / intervals : null };
      }),
  });
}
