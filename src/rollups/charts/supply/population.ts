/**
 * The holder population's definitions shared by the day chart and the API (docs/metrics.md,
 * "Holder population"): age buckets by last activity, the ranks each figure reads, and the
 * figures of one day from a scan of its sorted balances.
 */
import { percentOf } from '../../../chain/amounts.ts';
import { scanBalances, type SortedBalances } from '../../shared/balances.ts';
import type { LastDayCell } from '../../shared/last-day.ts';

/** Age buckets by days since the last activity: label and lower bound (inclusive). */
export const AGE_BUCKETS = [
  { label: '<1m', from: 0 },
  { label: '1m-1y', from: 30 },
  { label: '1-2y', from: 365 },
  { label: '2-5y', from: 730 },
  { label: '>5y', from: 1825 },
] as const;

/** Holders at least this many days without activity are dormant (`/supply/summary`). */
export const DORMANT_DAYS = 365;

export function ageBucketOf(ageDays: number): number {
  let b = 0;
  while (b + 1 < AGE_BUCKETS.length && ageDays >= AGE_BUCKETS[b + 1]!.from) b++;
  return b;
}

/** The Palma ratio's groups: the richest ⌈n/10⌉ and the poorest ⌊4n/10⌋. */
export const palmaTopCount = (n: number) => Math.ceil(n / 10);
export const palmaBottomCount = (n: number) => Math.floor((4 * n) / 10);

/** The exact inputs of a day's distribution figures (a chain_supply_daily row's). */
export interface DistributionInputs {
  holders: number;
  supply: bigint;
  top10: bigint;
  top100: bigint;
  pairDiff: bigint;
  sumSq: bigint;
  nakamoto: number;
  palmaTop: bigint;
  palmaBottom: bigint;
}

/** The balances of the `k` richest holders, from the prefix sums of a scan. */
export const topOf = (prefix: Map<number, bigint>, n: number, supply: bigint, k: number): bigint => (k >= n ? supply : supply - prefix.get(n - k)!);

export function distributionInputs(sorted: SortedBalances, extraRanks: number[] = []): DistributionInputs & { prefix: Map<number, bigint> } {
  const n = sorted.n;
  const ranks = [n - 10, n - 100, n - palmaTopCount(n), palmaBottomCount(n), ...extraRanks].filter((r) => r >= 0 && r <= n);
  const scan = scanBalances(sorted, ranks);
  const top = (k: number) => topOf(scan.prefix, n, scan.supply, k);
  return {
    holders: n,
    supply: scan.supply,
    top10: top(10),
    top100: top(100),
    pairDiff: scan.pairDiff,
    sumSq: scan.sumSq,
    nakamoto: scan.nakamoto,
    palmaTop: n === 0 ? 0n : top(palmaTopCount(n)),
    palmaBottom: scan.prefix.get(palmaBottomCount(n)) ?? 0n,
    prefix: scan.prefix,
  };
}

/** `part / whole` as a number (exactly rounded where the integers allow); 0 when whole is not positive. */
export const ratioOf = (part: bigint, whole: bigint): number => percentOf(part, whole * 100n);

/** The figures of a sorted population, as the API answers them. */
export function figuresOf(inputs: DistributionInputs) {
  const { holders: n, supply } = inputs;
  return {
    holders: n,
    top10_pct: percentOf(inputs.top10, supply),
    top100_pct: percentOf(inputs.top100, supply),
    gini: ratioOf(inputs.pairDiff, BigInt(n) * supply),
    nakamoto: inputs.nakamoto,
    hhi: ratioOf(inputs.sumSq, supply * supply),
    palma: inputs.palmaBottom > 0n ? ratioOf(inputs.palmaTop, inputs.palmaBottom) : 0,
  };
}

/** Days from a cell's last-activity day to `today` (a dayNumber of src/time.ts). */
export const ageDays = (cell: Pick<LastDayCell, 'dayNumber'>, today: number): number => today - cell.dayNumber;

/** Holders and their balances per age bucket (AGE_BUCKETS) on `today` (a dayNumber), from the cells per last-activity day. */
export function ageBuckets(cells: readonly LastDayCell[], today: number): { holders: number; balance: bigint }[] {
  const buckets = AGE_BUCKETS.map(() => ({ holders: 0, balance: 0n }));
  for (const c of cells) {
    const b = buckets[ageBucketOf(ageDays(c, today))]!;
    b.holders += c.holders;
    b.balance += c.balance;
  }
  return buckets;
}
