/**
 * Supply figures computed straight from a chain's canonical blocks, by docs/metrics.md ("Supply"):
 * what was minted each day (block rewards, withdrawals, successful migration mints, the genesis
 * supply), the migration legs and the fee burn.
 */
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { daysBetween } from './analytics-world.ts';
import { utcDay } from './utc-day.ts';

/** The pow coinbase sentinel and the pos zero address, written out. */
const SENTINELS = new Set(['Q' + '0'.repeat(64), 'Q' + '0'.repeat(40)]);

export interface SupplyDay {
  day: string;
  blocks: number;
  /** Everything minted that day, the genesis supply included. */
  minted: bigint;
  /** The part of `minted` that is genesis supply: allocations to real addresses and the genesis block's reward. */
  allocated: bigint;
  migrationBurned: bigint;
  migrationMinted: bigint;
  feeBurned: bigint;
  /** Everything minted up to the day's end. */
  cumulative: bigint;
}

/** Every day from the first block's to the last block's, oldest first, empty days included. */
export function supplyDays(blocks: CanonicalBlock[]): SupplyDay[] {
  const days = new Map<string, SupplyDay>();
  for (const day of daysBetween(utcDay(blocks[0]!.timestamp), utcDay(blocks.at(-1)!.timestamp))) {
    days.set(day, { day, blocks: 0, minted: 0n, allocated: 0n, migrationBurned: 0n, migrationMinted: 0n, feeBurned: 0n, cumulative: 0n });
  }
  for (const block of blocks) {
    const d = days.get(utcDay(block.timestamp))!;
    d.blocks++;
    // A block's reward is what it mints; the coinbase's value adds the fees it passes on. The
    // genesis block's reward (pow: the premine) is genesis supply, and so are its allocations to
    // real addresses; a sentinel's allocation (pow: the reserve rewards are paid from) is not supply.
    d.minted += block.reward;
    if (block.height === 0) d.allocated += block.reward;
    for (const a of block.allocations) {
      if (SENTINELS.has(a.address)) continue;
      d.minted += a.amount;
      d.allocated += a.amount;
    }
    for (const w of block.withdrawals) d.minted += w.amount;
    for (const tx of block.transactions) {
      d.feeBurned += tx.burned;
      if (tx.status === 0 || !tx.migration) continue;
      if (tx.migration.role === 'mint') {
        d.minted += tx.value;
        d.migrationMinted += tx.value;
      } else {
        d.migrationBurned += tx.value;
      }
    }
  }
  let running = 0n;
  for (const d of days.values()) {
    running += d.minted;
    d.cumulative = running;
  }
  return [...days.values()];
}

/** An integer amount in coins as a number, by way of its exact decimal form. */
export function coinsNumber(amount: bigint, decimals: number): number {
  const negative = amount < 0n;
  const magnitude = negative ? -amount : amount;
  const unit = 10n ** BigInt(decimals);
  const value = Number(`${magnitude / unit}.${(magnitude % unit).toString().padStart(decimals, '0')}`);
  return negative ? -value : value;
}
