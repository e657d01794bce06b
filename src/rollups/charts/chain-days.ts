/**
 * The per-day sums of chain_daily (rollups/network/chain-daily.ts), as the charts over them read them:
 * every block updates its day's row, so each day's row is current, the open day's included, and
 * the charts over it (block times and sizes, user transactions, the fee burn) close nothing.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import type { Days } from './days.ts';

export interface ChainDay {
  day: string;
  block_count: number;
  tx_count: number;
  user_tx_count: number;
  fee_sum: string;
  burned: string;
  volume: string;
  gas_used: string;
  size_sum: number;
  size_max: number;
  interval_sum: number;
  base_fee_sum: string;
}

/** The rollup whose table the charts over chain_daily read (KeptChart.keptBy). */
export const CHAIN_DAILY = 'chain_daily';

/**
 * The range's chain_daily rows, by day (a day without blocks has none). A primary-key range plans
 * the same whatever the days, so its plan is kept.
 */
export async function chainDayRows(db: Db, chain: ChainId, range: Days): Promise<Map<string, ChainDay>> {
  const rows = await db.query<ChainDay>(
    'analytics.chain_days',
    sql`SELECT day::text AS day, block_count, tx_count, user_tx_count, fee_sum::text, burned::text, volume::text, gas_used::text,
               size_sum, size_max, interval_sum, base_fee_sum::text
        FROM chain_daily WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date ORDER BY day`,
    { reusePlan: true },
  );
  return new Map(rows.map((r) => [r.day, { ...r, size_sum: Number(r.size_sum), interval_sum: Number(r.interval_sum) }]));
}

/** A day without blocks. */
export const noBlocks = (day: string): ChainDay => ({
  day, block_count: 0, tx_count: 0, user_tx_count: 0, fee_sum: '0', burned: '0', volume: '0', gas_used: '0', size_sum: 0, size_max: 0, interval_sum: 0, base_fee_sum: '0',
});
