/** chain_daily rows of a day range: the per-day sums every block updates (rollups/chain-daily.ts), the open day included. */
import sql from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { dayRows, zeroFill, type DayRange } from './series.ts';

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

/** The range's chain_daily rows, by day (a day without blocks has none). */
export async function chainDayRows(db: Db, chain: ChainId, range: Pick<DayRange, 'from' | 'to'>): Promise<Map<string, ChainDay>> {
  const rows = await dayRows<ChainDay>(
    db,
    'analytics.chain_days',
    sql`SELECT day::text AS day, block_count, tx_count, user_tx_count, fee_sum::text, burned::text, volume::text, gas_used::text,
               size_sum, size_max, interval_sum, base_fee_sum::text
        FROM chain_daily WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date ORDER BY day`,
  );
  return new Map(rows.map((r) => [r.day, { ...r, size_sum: Number(r.size_sum), interval_sum: Number(r.interval_sum) }]));
}

/** A day without blocks. */
export const noBlocks = (day: string): ChainDay => ({
  day, block_count: 0, tx_count: 0, user_tx_count: 0, fee_sum: '0', burned: '0', volume: '0', gas_used: '0', size_sum: 0, size_max: 0, interval_sum: 0, base_fee_sum: '0',
});

/** Every day of the range, oldest first, from its chain_daily row (zeros for a day without one). */
export async function chainDays(db: Db, chain: ChainId, range: Pick<DayRange, 'from' | 'to'>): Promise<ChainDay[]> {
  return zeroFill(range, await chainDayRows(db, chain, range), noBlocks);
}
