/**
 * Fee percentiles of a day (docs/metrics.md, "Fee percentiles"): exact nearest-rank p50, p95 and
 * p99 over every fee of the day (the p-th percentile is the smallest fee with at least ⌈p·n/100⌉
 * fees at or below it), the largest fee and the sum, from the day's fee multiset (chain_fee_values).
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import { chartSeries, type ClosedChart } from '../../engine/rollup.ts';
import { readDays } from '../days.ts';

/** Rows (day, tx_count, fee_p50, fee_p95, fee_p99, fee_max, fee_sum) of the days with fees from `fromDay` to `toDay`. */
export function feePercentilesByDay(chain: ChainId, fromDay: string, toDay: string): Sql {
  return sql`SELECT day, max(n)::int AS tx_count,
                    min(fee) FILTER (WHERE cum * 100 >= n * 50) AS fee_p50,
                    min(fee) FILTER (WHERE cum * 100 >= n * 95) AS fee_p95,
                    min(fee) FILTER (WHERE cum * 100 >= n * 99) AS fee_p99,
                    max(fee) AS fee_max, sum(fee * tx_count) AS fee_sum
             FROM (
               SELECT day, fee, tx_count, sum(tx_count) OVER (PARTITION BY day ORDER BY fee) AS cum, sum(tx_count) OVER (PARTITION BY day) AS n
               FROM chain_fee_values WHERE chain = ${chain} AND day BETWEEN ${fromDay}::date AND ${toDay}::date
             ) v
             GROUP BY day`;
}

/** A day's figures as the API answers them: amounts as decimal strings. */
export interface FeeDay {
  day: string;
  tx_count: number;
  fee_p50: string;
  fee_p95: string;
  fee_p99: string;
  fee_max: string;
  fee_sum: string;
}

const COLUMNS = sql`day::text AS day, tx_count, fee_p50::text, fee_p95::text, fee_p99::text, fee_max::text, fee_sum::text`;

export const feePercentiles: ClosedChart<FeeDay> = {
  name: 'fee_percentiles',
  part: 'network',
  table: 'chain_fee_daily',
  read: (db, chain, range) =>
    readDays(db, range, {
      label: 'charts.fee_percentiles',
      closed: (d) => sql`SELECT ${COLUMNS} FROM chain_fee_daily WHERE chain = ${chain} AND day BETWEEN ${d.from}::date AND ${d.to}::date ORDER BY day`,
      open: (d) => sql`SELECT ${COLUMNS} FROM (${feePercentilesByDay(chain, d.from, d.to)}) f`,
    }),
  series: [chartSeries<FeeDay>({
    path: '/analytics/fees/percentiles',
    operationId: 'getFeePercentiles',
    summary: 'Exact fee percentiles, largest fee and sum per day',
    window: '30d',
    fields: {
      tx_count: { kind: 'integer', description: 'Transactions of the day (each pays one fee).' },
      fee_p50: { kind: 'amount', description: 'Median fee: the smallest fee with at least half of the day’s fees at or below it.' },
      fee_p95: { kind: 'amount', description: 'The smallest fee with at least 95 % of the day’s fees at or below it.' },
      fee_p99: { kind: 'amount', description: 'The smallest fee with at least 99 % of the day’s fees at or below it.' },
      fee_max: { kind: 'amount', description: 'Largest fee of the day.' },
      fee_sum: { kind: 'amount', description: 'Sum of the day’s fees.' },
    },
    itemsDescription: 'One item per UTC day, oldest first, to the latest block’s day; zeros on a day without transactions. Fees in the chain’s smallest unit (pos: gas used × effective gas price).',
    envelope: { count: true, chain: true, network: true, window_days: true },
    missingDay: 'zero',
  })],
  async close(db, chain, fromDay, toDay) {
    await db.query(
      'rollups.charts.fee_percentiles',
      // A row for every closed day, zero where the day had no transaction.
      sql`INSERT INTO chain_fee_daily (chain, day, tx_count, fee_p50, fee_p95, fee_p99, fee_max, fee_sum)
          SELECT ${chain}, d.day, coalesce(f.tx_count, 0), coalesce(f.fee_p50, 0), coalesce(f.fee_p95, 0), coalesce(f.fee_p99, 0),
                 coalesce(f.fee_max, 0), coalesce(f.fee_sum, 0)
          FROM (SELECT s::date AS day FROM generate_series(${fromDay}::date, ${toDay}::date, interval '1 day') AS s) d
          LEFT JOIN (${feePercentilesByDay(chain, fromDay, toDay)}) f ON f.day = d.day
          ON CONFLICT (chain, day) DO UPDATE SET tx_count = excluded.tx_count, fee_p50 = excluded.fee_p50, fee_p95 = excluded.fee_p95,
            fee_p99 = excluded.fee_p99, fee_max = excluded.fee_max, fee_sum = excluded.fee_sum`,
    );
  },
};
