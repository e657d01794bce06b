/** User transactions per day (docs/metrics.md, "Network activity"), from chain_daily. */
import { chartSeries, type KeptChart } from '../../engine/rollup.ts';
import { CHAIN_DAILY, chainDayRows, noBlocks, type ChainDay } from '../chain-days.ts';
import { ONE_ITEM_PER_DAY } from '../days.ts';

export const userTransactions: KeptChart<ChainDay> = {
  name: 'user_transactions',
  part: 'network',
  keptBy: CHAIN_DAILY,
  read: chainDayRows,
  series: [
    chartSeries<ChainDay>({
      path: '/analytics/transactions/user-daily',
      operationId: 'getUserTransactionsDaily',
      summary: 'User transactions per day',
      window: '30d',
      fields: {
        user_tx_count: { kind: 'integer', description: 'Transactions of the day that are not block rewards (coinbase) or pow administration.' },
      },
      itemsDescription: `${ONE_ITEM_PER_DAY} (partial, current to that block).`,
      envelope: { count: true, chain: true, network: true, window_days: true },
      missingDay: { zero: noBlocks },
    }),
  ],
};
