/** Blocks per day and their sizes (docs/metrics.md, "Block size"), from chain_daily. */
import { chartSeries, type KeptChart } from '../../engine/rollup.ts';
import { CHAIN_DAILY, chainDayRows, noBlocks, type ChainDay } from '../chain-days.ts';
import { ONE_ITEM_PER_DAY } from '../days.ts';

export const blockSize: KeptChart<ChainDay> = {
  name: 'block_size',
  part: 'network',
  keptBy: CHAIN_DAILY,
  read: chainDayRows,
  series: [
    chartSeries<ChainDay, Record<string, unknown>>({
      path: '/analytics/block-size',
      operationId: 'getBlockSize',
      summary: 'Blocks per day and their mean, largest and total size',
      window: '30d',
      fields: {
        block_count: { kind: 'integer' },
        avg_block_size: { kind: 'integer', description: 'Mean serialized block size in bytes, rounded down; 0 without blocks.' },
        max_block_size: { kind: 'integer', description: 'Largest block of the day in bytes.' },
        total_block_size: { kind: 'amount', description: 'Bytes of all the day’s blocks, as a decimal string.' },
      },
      itemsDescription: `${ONE_ITEM_PER_DAY}.`,
      envelope: { count: true, chain: true, network: true, window_days: true },
      missingDay: { zero: noBlocks },
      items: (rows) =>
        rows.map((d) => ({
          day: d.day,
          block_count: d.block_count,
          avg_block_size: d.block_count > 0 ? Math.floor(d.size_sum / d.block_count) : 0,
          max_block_size: d.size_max,
          total_block_size: String(d.size_sum),
        })),
    }),
  ],
};
