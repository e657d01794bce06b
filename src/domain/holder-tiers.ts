/**
 * The ten holder tiers of docs/metrics.md (and ARCHITECTURE.md): lower bounds in whole coins,
 * inclusive. An address with a positive balance belongs to the highest tier whose bound it reaches.
 */
import { CHAIN_INFO, type ChainId } from '../chain/chains.ts';

export interface HolderTier {
  name: string;
  label: string;
  /** Lower bound in whole coins (inclusive). */
  minCoins: bigint;
  emoji: string;
}

export const HOLDER_TIERS: readonly HolderTier[] = [
  { name: 'plankton', label: 'Plankton', minCoins: 0n, emoji: '🦠' },
  { name: 'shrimp', label: 'Shrimp', minCoins: 1n, emoji: '🦐' },
  { name: 'crab', label: 'Crab', minCoins: 10n, emoji: '🦀' },
  { name: 'fish', label: 'Fish', minCoins: 100n, emoji: '🐟' },
  { name: 'dolphin', label: 'Dolphin', minCoins: 1_000n, emoji: '🐬' },
  { name: 'shark', label: 'Shark', minCoins: 10_000n, emoji: '🦈' },
  { name: 'orca', label: 'Orca', minCoins: 40_000n, emoji: '🐋' },
  { name: 'whale', label: 'Whale', minCoins: 100_000n, emoji: '🐳' },
  { name: 'humpback', label: 'Humpback', minCoins: 1_000_000n, emoji: '🐋' },
  { name: 'leviathan', label: 'Leviathan', minCoins: 5_000_000n, emoji: '🌊' },
];

/** The whale tier's floor: the leaderboard's whale_only and the spec's fixed 100,000 coins. */
export const WHALE_COINS = 100_000n;

/** A tier's floor (or any whole-coin amount) in the chain's smallest unit. */
export function tierFloor(chain: ChainId, minCoins: bigint): bigint {
  return minCoins * CHAIN_INFO[chain].unitsPerCoin;
}

/** The whale floor in the chain's smallest unit. */
export function whaleFloor(chain: ChainId): bigint {
  return tierFloor(chain, WHALE_COINS);
}

/** The tier of a positive balance (in the chain's smallest unit) and its index; null for zero or less. */
export function holderTier(chain: ChainId, balance: bigint): { tier: HolderTier; index: number } | null {
  if (balance <= 0n) return null;
  for (let index = HOLDER_TIERS.length - 1; index >= 0; index--) {
    const tier = HOLDER_TIERS[index]!;
    if (balance >= tierFloor(chain, tier.minCoins)) return { tier, index };
  }
  return null;
}
