/**
 * Per-day figures of a chain computed straight from its canonical blocks, by the definitions in
 * docs/metrics.md: what the analytics endpoints over blocks, transactions, fees and burn must answer.
 */
import type { CanonicalBlock, CanonicalTx } from '../../src/chain/model.ts';
import { daysBetween } from './analytics-world.ts';
import { utcDay } from './utc-day.ts';

export interface DayFigures {
  blocks: number;
  /** Seconds from each block of the day to its parent (the chain's first block has none). */
  intervals: number[];
  sizes: number[];
  txs: CanonicalTx[];
  burned: bigint;
  baseFeeSum: bigint;
  gasUsed: bigint;
}

/** Every day from the first block's to the last block's, with its figures (empty days included). */
export function dailyFigures(blocks: CanonicalBlock[]): Map<string, DayFigures> {
  const days = new Map<string, DayFigures>();
  for (const day of daysBetween(utcDay(blocks[0]!.timestamp), utcDay(blocks.at(-1)!.timestamp))) {
    days.set(day, { blocks: 0, intervals: [], sizes: [], txs: [], burned: 0n, baseFeeSum: 0n, gasUsed: 0n });
  }
  blocks.forEach((block, i) => {
    const d = days.get(utcDay(block.timestamp))!;
    d.blocks++;
    if (i > 0) d.intervals.push(block.timestamp - blocks[i - 1]!.timestamp);
    d.sizes.push(block.size);
    d.txs.push(...block.transactions);
    // EIP-1559: what a block burns is its base fee times the gas it used.
    d.burned += (block.baseFeePerGas ?? 0n) * BigInt(block.gasUsed ?? 0);
    d.baseFeeSum += block.baseFeePerGas ?? 0n;
    d.gasUsed += BigInt(block.gasUsed ?? 0);
  });
  return days;
}

/** The last `days` entries (the window ending with the tip's day). */
export function lastDays<T>(figures: Map<string, T>, days: number): [string, T][] {
  const all = [...figures.entries()];
  return all.slice(Math.max(0, all.length - days));
}

/** Nearest-rank percentile: the value at rank ⌈p·n/100⌉ of the sorted values. */
export function nearestRank(sorted: bigint[], p: number): bigint {
  if (sorted.length === 0) return 0n;
  return sorted[Math.ceil((p * sorted.length) / 100) - 1]!;
}

/** The fee percentiles item of a day (docs/metrics.md, "Fee percentiles"): over every fee of its transactions. */
export function feePercentilesItem(day: string, figures: DayFigures) {
  const fees = figures.txs.map((tx) => tx.fee).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    day,
    tx_count: fees.length,
    fee_p50: nearestRank(fees, 50).toString(),
    fee_p95: nearestRank(fees, 95).toString(),
    fee_p99: nearestRank(fees, 99).toString(),
    fee_max: (fees.at(-1) ?? 0n).toString(),
    fee_sum: fees.reduce((a, b) => a + b, 0n).toString(),
  };
}

/** An integer amount in coins as an exact decimal string (without trailing zeros). */
export function coinsText(amount: bigint, decimals: number): string {
  const unit = 10n ** BigInt(decimals);
  const fraction = (amount % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${amount / unit}${fraction ? `.${fraction}` : ''}`;
}
