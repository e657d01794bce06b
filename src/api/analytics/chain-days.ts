/** chain_daily rows of a day range, zero-filled: the per-day sums every block updates (rollups/charts/chain-days.ts), the open day included. */
import type { ChainId } from '../../chain/chains.ts';
import { chainDayRows, noBlocks, type ChainDay } from '../../rollups/charts/chain-days.ts';
import type { Db } from '../../store/store.ts';
import { zeroFill, type DayRange } from './series.ts';

export { chainDayRows, noBlocks, type ChainDay };

/** Every day of the range, oldest first, from its chain_daily row (zeros for a day without one). */
export async function chainDays(db: Db, chain: ChainId, range: Pick<DayRange, 'from' | 'to'>): Promise<ChainDay[]> {
  return zeroFill(range, await chainDayRows(db, chain, range), noBlocks);
}
