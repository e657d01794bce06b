/** pos transactions per day in seven gas buckets (docs/metrics.md, "Gas distribution"), from chain_gas_buckets. */
import sql from 'sql-template-tag';
import { chartSeries, type KeptChart } from '../../engine/rollup.ts';
import { dayCounts, noCounts, type DayCounts } from '../days.ts';

/** The buckets as rollups/network/day-breakdowns.ts `gasBucket` assigns them (first match in the order of the rule there). */
const GAS_BUCKETS = [
  { id: 0, label: 'simple value transfer', meaning: 'A plain transfer of native value (no contract code runs).' },
  { id: 1, label: 'token transfer', meaning: 'A contract call under 1M gas that moved exactly one token.' },
  { id: 2, label: 'contract call', meaning: 'A contract call under 100,000 gas that moved no token.' },
  { id: 3, label: 'contract swap', meaning: 'A contract call under 1M gas that moved two or more tokens (a swap or a multi-token transfer).' },
  { id: 4, label: 'complex contract call', meaning: 'A contract call of 100,000 gas to under 1M that moved no token.' },
  { id: 5, label: 'deploy', meaning: 'A contract creation under 1M gas.' },
  { id: 6, label: '1M+ gas', meaning: 'Any transaction that used one million gas or more.' },
] as const;

export const gasDistribution: KeptChart<DayCounts> = {
  name: 'gas_distribution',
  part: 'network',
  keptBy: 'chain_day_breakdowns',
  read: (db, chain, range) =>
    dayCounts(db, 'analytics.gas_buckets', sql`SELECT day::text AS day, bucket AS key, tx_count AS n FROM chain_gas_buckets
                                              WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date`),
  series: [
    chartSeries<DayCounts, { day: string; bucket: number; bucket_label: string; bucket_count: number }>({
      path: '/analytics/gas-distribution',
      operationId: 'getGasDistribution',
      summary: 'pos transactions per day by gas bucket',
      window: '30d',
      // pow has no gas: no days.
      chains: ['pos'],
      fields: {
        bucket: { kind: 'integer', minimum: 0, maximum: 6 },
        bucket_label: { kind: 'string' },
        bucket_count: { kind: 'integer', description: 'Transactions of the day in the bucket.' },
      },
      itemsDescription: 'For each UTC day of the window (oldest first, to the latest block’s day) the seven buckets in order, zero where none; empty on pow, which has no gas.',
      envelope: {
        count: true, network: true, window_days: true,
        buckets: { kind: 'list', of: { id: { kind: 'integer' }, label: { kind: 'string' }, meaning: { kind: 'string' } } },
      },
      missingDay: { zero: noCounts },
      items: (rows) =>
        rows.flatMap(({ day, counts }) => GAS_BUCKETS.map((b) => ({ day, bucket: b.id, bucket_label: b.label, bucket_count: counts.get(String(b.id)) ?? 0 }))),
      extra: () => ({ buckets: GAS_BUCKETS.map((b) => ({ ...b })) }),
    }),
  ],
};
