/**
 * All rollups, applied and reverted together. The order matters only where a rollup reads
 * another: address_summary first (its new-address count feeds chain_stats; the holder
 * transitions read balances before they change).
 */
import type { Db } from '../store/store.ts';
import { formatDay } from '../api/format.ts';
import { applyAddressSummary, repairAddressSummary, revertAddressSummary } from './address-summary.ts';
import { applyAddressActivity, revertAddressActivity } from './address-activity.ts';
import { applyCounterparties, repairCounterparties, revertCounterparties } from './counterparties.ts';
import { applyTokenBalances, repairTokenBalances, revertTokenBalances } from './token-balances.ts';
import { applyChainDaily, repairChainDaily, revertChainDaily } from './chain-daily.ts';
import { reopenDays } from './day-metrics.ts';
import { materialiseScope, type Scope } from './scope.ts';

export type { Scope } from './scope.ts';
export { closeDays } from './day-metrics.ts';

/** Adds the contribution of the blocks in `scope`, whose raw rows are written. */
export async function applyRollups(db: Db, scope: Scope): Promise<void> {
  await materialiseScope(db, scope);
  const { newAddresses } = await applyAddressSummary(db, scope);
  await applyAddressActivity(db, scope);
  await applyCounterparties(db, scope);
  await applyTokenBalances(db, scope);
  await applyChainDaily(db, scope, newAddresses);
}

/**
 * Removes the contribution of the blocks in `scope` (the top of the chain): subtracts while their
 * raw rows exist, lets `deleteRaw` remove them, then repairs what subtraction cannot restore.
 * `firstTs` is the time of the scope's first block: closed days from its day on are reopened.
 */
export async function revertRollups(db: Db, scope: Scope, firstTs: number, deleteRaw: () => Promise<void>): Promise<void> {
  await materialiseScope(db, scope);
  await revertAddressSummary(db, scope);
  await revertAddressActivity(db, scope);
  await revertCounterparties(db, scope);
  await revertTokenBalances(db, scope);
  await revertChainDaily(db, scope);
  await deleteRaw();
  const { removedAddresses } = await repairAddressSummary(db, scope);
  await repairCounterparties(db, scope);
  await repairTokenBalances(db, scope);
  await repairChainDaily(db, scope, firstTs, removedAddresses);
  await reopenDays(db, scope.chain, formatDay(firstTs));
}
