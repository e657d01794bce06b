/** Amounts of the supply routes in coins and shor (docs/metrics.md, "Supply"); the minted days: rollups/charts/supply/minted-days.ts. */
import { CHAIN_INFO, PLANCK_PER_SHOR, type ChainId } from '../../../chain/chains.ts';
import { formatUnits } from '../../amounts.ts';

export { chainEnds, mintedDays, NO_TOTALS, supplyTotals, type ChainEnds, type MintedDay, type SupplyTotals } from '../../../rollups/charts/supply/minted-days.ts';

/** An amount of the chain's smallest unit in coins, as a JSON number (converted from the exact decimal). */
export function coinsOf(chain: ChainId, amount: bigint): number {
  return Number(formatUnits(amount.toString(), CHAIN_INFO[chain].decimals));
}

/** Planck in whole shor, rounded toward zero (docs/metrics.md, "Supply": shor and planck). */
export function planckToShor(planck: bigint): bigint {
  return planck / PLANCK_PER_SHOR;
}

/** An amount of the chain's smallest unit in shor. */
export function inShor(chain: ChainId, amount: bigint): bigint {
  return chain === 'pos' ? planckToShor(amount) : amount;
}
