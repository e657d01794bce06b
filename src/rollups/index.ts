/**
 * All rollups, applied and reverted together from one `RollupDeltas`. The order matters only
 * where a rollup reads another: the holder transitions read balances before address_summary
 * changes, address_summary's new-address count feeds chain_stats, and the rank buckets take the
 * touched addresses out before address_summary changes and put them back after (and after the
 * repair, on a revert).
 */
import type { Db } from '../store/store.ts';
import { applyAddressSummary, repairAddressSummary, revertAddressSummary } from './address-summary.ts';
import { applyAddressActivity, revertAddressActivity } from './address-activity.ts';
import { applyRanksAfter, captureRanksBefore } from './address-ranks.ts';
import { keepFeeWindows } from './fee-windows.ts';
import { applyCounterparties, repairCounterparties, revertCounterparties } from './counterparties.ts';
import { applyTokenBalances, repairTokenBalances, revertTokenBalances } from './token-balances.ts';
import { applyChainDaily, repairChainDaily, revertChainDaily } from './chain-daily.ts';
import { reopenDays } from './day-metrics.ts';
import { freshRollups, writeDeltaTables } from './delta-tables.ts';
import type { RollupDeltas } from './deltas.ts';
import { formatDay } from '../time.ts';

export { RollupDeltas } from './deltas.ts';
export { closeDays } from './day-metrics.ts';
export { recomputeHolderTransitions } from './address-summary.ts';
export { recomputeChainStats } from './chain-daily.ts';
export { rebuildRanks } from './address-ranks.ts';
export { rebuildFeeWindows } from './fee-windows.ts';

/**
 * Adds `deltas` (of blocks whose raw rows are written) to every rollup. A `partial` delta (a
 * refresh of some addresses) leaves out the chain-wide counters, which the refresh recomputes.
 */
export async function applyRollups(db: Db, deltas: RollupDeltas, options: { partial?: boolean } = {}): Promise<void> {
  if (deltas.blocks === 0) return;
  // Tables with nothing of the chain yet take the deltas without a merge (delta-tables.ts).
  const fresh = await freshRollups(db, deltas.chain);
  await writeDeltaTables(db, deltas, fresh);
  const ranks = await captureRanksBefore(db, deltas.chain);
  const { newAddresses } = await applyAddressSummary(db, deltas.chain, { holders: !options.partial, fresh: fresh.summary });
  await applyRanksAfter(db, deltas.chain, ranks);
  await applyAddressActivity(db, deltas.chain, fresh);
  if (!fresh.pairs) await applyCounterparties(db, deltas.chain);
  if (!fresh.tokens) await applyTokenBalances(db, deltas.chain);
  await applyChainDaily(db, deltas, newAddresses, { stats: !options.partial });
  await keepFeeWindows(db, deltas.chain);
}

/**
 * Removes `deltas` (of the newest blocks, down to just above `ancestor`): subtracts while their
 * raw rows exist, lets `deleteRaw` remove them, repairs what subtraction cannot restore, and
 * reopens the closed days from `firstTs` (the first reverted block's time) on.
 */
export async function revertRollups(db: Db, deltas: RollupDeltas, ancestor: number, firstTs: number, deleteRaw: () => Promise<void>): Promise<void> {
  await writeDeltaTables(db, deltas);
  const ranks = await captureRanksBefore(db, deltas.chain);
  await revertAddressSummary(db, deltas.chain);
  await revertAddressActivity(db, deltas.chain);
  await revertCounterparties(db, deltas.chain);
  await revertTokenBalances(db, deltas.chain);
  await revertChainDaily(db, deltas);
  await deleteRaw();
  const { removedAddresses } = await repairAddressSummary(db, deltas.chain, ancestor);
  await applyRanksAfter(db, deltas.chain, ranks);
  await repairCounterparties(db, deltas.chain);
  await repairTokenBalances(db, deltas.chain);
  await repairChainDaily(db, deltas.chain, removedAddresses);
  await reopenDays(db, deltas.chain, formatDay(firstTs));
  await keepFeeWindows(db, deltas.chain);
}
