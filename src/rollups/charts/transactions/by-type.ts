/** Transactions per day and type (docs/metrics.md, "Transactions by type"), from chain_tx_types. */
import sql from 'sql-template-tag';
import { TX_TYPES } from '../../../chain/model.ts';
import { chartSeries, type KeptChart } from '../../engine/rollup.ts';
import { dayCounts, noCounts, type DayCounts } from '../days.ts';

export const transactionsByType: KeptChart<DayCounts> = {
  name: 'transactions_by_type',
  part: 'network',
  keptBy: 'chain_day_breakdowns',
  read: (db, chain, range) =>
    dayCounts(db, 'analytics.by_type', sql`SELECT day::text AS day, tx_type AS key, tx_count AS n FROM chain_tx_types
                                          WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`),
  series: [
    chartSeries<DayCounts, { day: string; tx_type: string; tx_count: number }>({
      path: '/analytics/transactions/by-type',
      operationId: 'getTransactionsByType',
      summary: 'Transactions per day and type',
      window: '30d',
      fields: {
        tx_type: { kind: 'string', description: 'pow: the transaction subtype (transfer, coinbase, latticePK, message, token, transfer_token, slave, multi_sig_create, multi_sig_spend, multi_sig_vote); pos: transfer, contract_call or contract_create.' },
        tx_count: { kind: 'integer', description: 'Transactions of the type that day (a multi-recipient transfer counts once).' },
      },
      itemsDescription: 'For each UTC day of the window (oldest first, to the latest block’s day) one item per type of the chain, in the order above; zero where none.',
      envelope: { count: true, chain: true, network: true, window_days: true },
      missingDay: { zero: noCounts },
      items: (rows, { chain }) => rows.flatMap(({ day, counts }) => TX_TYPES[chain].map((tx_type) => ({ day, tx_type, tx_count: counts.get(tx_type) ?? 0 }))),
    }),
  ],
};
