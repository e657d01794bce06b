/** Blocks per day and the mean interval between them (docs/metrics.md, "Block times"), from chain_daily. */
import { chartSeries, type KeptChart } from '../../engine/rollup.ts';
import { CHAIN_DAILY, chainDayRows, noBlocks, type ChainDay } from '../chain-days.ts';
import { ONE_ITEM_PER_DAY } from '../days.ts';

export const blockTimes: KeptChart<ChainDay> = {
  name: 'block_times',
  part: 'network',
  keptBy: CHAIN_DAILY,
  read: chainDayRows,
  series: [
    chartSeries<ChainDay, { day: string; block_count: number; avg_block_time_seconds: number | null }>({
      path: '/analytics/block-times',
      operationId: 'getBlockTimes',
      summary: 'Blocks per day and the mean block interval',
      window: '30d',
      fields: {
        block_count: { kind: 'integer' },
        avg_block_time_seconds: { kind: 'number', nullable: true, description: 'Mean seconds from each block of the day to its parent; null without an interval (no block, or only the genesis block).' },
      },
      itemsDescription: `${ONE_ITEM_PER_DAY}.`,
      envelope: { count: true, chain: true, network: true, window_days: true },
      missingDay: { zero: noBlocks },
      items: (rows, { span }) =>
        rows.map((d) => {
          // The chain's first block has no parent, hence no interval.
          const intervals = d.block_count - (d.day === span.first ? 1 : 0);
          return { day: d.day, block_count: d.block_count, avg_block_time_seconds: intervals > 0 ? d.interval_sum / intervals : null };
        }),
    }),
  ],
};
