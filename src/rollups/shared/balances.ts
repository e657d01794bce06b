/**
 * Exact arithmetic on a sorted population of balances without a bigint per operation: a balance is
 * held as four base-2^24 limbs in doubles (exact up to 2^96), and the figures over a million
 * holders (docs/metrics.md, "Holder population") are sums of limb products, carried now and then,
 * turned into bigints once. BigInt arithmetic costs about a hundred times a double's here.
 */

const BASE = 2 ** 24;
const BASE_N = 24n;

/** A signed integer as limbs l0..l3 (l0..l2 in [0, 2^24), l3 carries the sign and the rest). */
export type Limbs = [number, number, number, number];

function carry(acc: number[] | Float64Array, from = 0): void {
  for (let j = from; j < acc.length - 1; j++) {
    const c = Math.floor(acc[j]! / BASE);
    if (c !== 0) {
      acc[j]! -= c * BASE;
      acc[j + 1]! += c;
    }
  }
}

/** Decimal digits that always fit a double exactly (10^15 < 2^53). */
const EXACT_DIGITS = 15;

/** The limbs of a decimal integer (optionally negative). */
export function parseLimbs(text: string): Limbs {
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  const l: Limbs = [0, 0, 0, 0];
  if (digits.length <= EXACT_DIGITS) {
    // Most balances: the number itself, split by exact divisions.
    let v = Number(digits);
    for (let j = 0; j < 3; j++) {
      l[j] = v % BASE;
      v = (v - l[j]!) / BASE;
    }
    l[3] = v;
  } else {
    const head = digits.length % 6 || 6;
    for (let i = 0; i < digits.length; ) {
      const width = i === 0 ? head : 6;
      const chunk = Number(digits.slice(i, i + width));
      const scale = 10 ** width;
      l[0] = l[0] * scale + chunk;
      l[1] *= scale;
      l[2] *= scale;
      l[3] *= scale;
      carry(l);
      i += width;
    }
  }
  if (negative) {
    l[0] = -l[0];
    l[1] = -l[1];
    l[2] = -l[2];
    l[3] = -l[3];
    carry(l);
  }
  return l;
}

export function addLimbs(a: Limbs, b: Limbs): Limbs {
  const r: Limbs = [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]];
  carry(r);
  return r;
}

export function compareLimbs(a: Limbs, b: Limbs): number {
  return a[3] - b[3] || a[2] - b[2] || a[1] - b[1] || a[0] - b[0];
}

export function isPositive(a: Limbs): boolean {
  return a[3] > 0 || (a[3] === 0 && (a[2] > 0 || a[1] > 0 || a[0] > 0));
}

/** An accumulator's value (limbs of any length, carried or not). */
export function limbsToBigInt(acc: ArrayLike<number>): bigint {
  let v = 0n;
  for (let j = acc.length - 1; j >= 0; j--) v = (v << BASE_N) + BigInt(acc[j]!);
  return v;
}

/**
 * Holders' balances (all positive), ascending, as four parallel limb arrays. The low three limbs of
 * a non-negative value are in [0, 2^24) (parseLimbs and carry keep them there), so they are held in
 * 32-bit integers; the top limb, which carries the rest, in doubles: 20 bytes a holder instead of 32.
 */
export class SortedBalances {
  constructor(
    readonly n: number,
    readonly l0: Uint32Array,
    readonly l1: Uint32Array,
    readonly l2: Uint32Array,
    readonly l3: Float64Array,
  ) {}

  /** `n` zero balances, to be filled. */
  static ofSize(n: number): SortedBalances {
    return new SortedBalances(n, new Uint32Array(n), new Uint32Array(n), new Uint32Array(n), new Float64Array(n));
  }

  static empty(): SortedBalances {
    return SortedBalances.ofSize(0);
  }

  /** From balances already sorted ascending. */
  static of(sorted: Limbs[]): SortedBalances {
    const s = SortedBalances.ofSize(sorted.length);
    sorted.forEach((v, i) => s.set(i, v));
    return s;
  }

  /** The first `n` balances, sharing these arrays (no copy). */
  head(n: number): SortedBalances {
    return n === this.n ? this : new SortedBalances(n, this.l0.subarray(0, n), this.l1.subarray(0, n), this.l2.subarray(0, n), this.l3.subarray(0, n));
  }

  at(i: number): Limbs {
    return [this.l0[i]!, this.l1[i]!, this.l2[i]!, this.l3[i]!];
  }

  set(i: number, v: Limbs): void {
    this.l0[i] = v[0];
    this.l1[i] = v[1];
    this.l2[i] = v[2];
    this.l3[i] = v[3];
  }

  /** How `x` compares with the balance at `i` (negative: below it). */
  private compareAt(x: Limbs, i: number): number {
    return x[3] - this.l3[i]! || x[2] - this.l2[i]! || x[1] - this.l1[i]! || x[0] - this.l0[i]!;
  }

  /**
   * A copy without one occurrence of each of `removed` and with `added` (both ascending). Reads
   * the limbs in place: a day's merge passes over every holder, and a list per holder would be
   * a million allocations a day.
   */
  update(removed: Limbs[], added: Limbs[]): SortedBalances {
    const n = this.n - removed.length + added.length;
    const out = SortedBalances.ofSize(n);
    let r = 0;
    let a = 0;
    let o = 0;
    for (let i = 0; i < this.n; i++) {
      if (r < removed.length && this.compareAt(removed[r]!, i) === 0) {
        r++;
        continue;
      }
      while (a < added.length && this.compareAt(added[a]!, i) < 0) out.set(o++, added[a++]!);
      out.l0[o] = this.l0[i]!;
      out.l1[o] = this.l1[i]!;
      out.l2[o] = this.l2[i]!;
      out.l3[o] = this.l3[i]!;
      o++;
    }
    while (a < added.length) out.set(o++, added[a++]!);
    if (r !== removed.length || o !== n) throw new Error('holder balances: a removed balance was not held');
    return out;
  }
}

/** What one pass over sorted balances gives: exact sums, and the ascending prefix sums at `ranks`. */
export interface BalanceScan {
  holders: number;
  supply: bigint;
  /** Σ_{i<j} |x_i − x_j| = Σ_i (2i − n − 1) x_(i). */
  pairDiff: bigint;
  sumSq: bigint;
  /** Rank (count of the poorest holders) → their balances. */
  prefix: Map<number, bigint>;
  /** The fewest holders whose balances exceed half of the supply. */
  nakamoto: number;
}

/** Sums over `s` in one pass, with the prefix sums at `ranks` (each 0..n). */
export function scanBalances(s: SortedBalances, ranks: Iterable<number>): BalanceScan {
  const n = s.n;
  // The ranks in order, met one after another as the pass counts holders.
  const wanted = [...new Set(ranks)].sort((x, y) => x - y);
  let next = 0;
  const prefix = new Map<number, bigint>();
  const sum = new Float64Array(6);
  const pair = new Float64Array(10);
  const sq = new Float64Array(12);
  for (; next < wanted.length && wanted[next]! <= 0; next++) {
    if (wanted[next] === 0) prefix.set(0, 0n);
  }
  for (let i = 0; i < n; i++) {
    const a0 = s.l0[i]!, a1 = s.l1[i]!, a2 = s.l2[i]!, a3 = s.l3[i]!;
    sum[0]! += a0; sum[1]! += a1; sum[2]! += a2; sum[3]! += a3;
    const c = 2 * (i + 1) - n - 1;
    pair[0]! += c * a0; pair[1]! += c * a1; pair[2]! += c * a2; pair[3]! += c * a3;
    sq[0]! += a0 * a0;
    sq[1]! += 2 * a0 * a1;
    sq[2]! += 2 * a0 * a2 + a1 * a1;
    sq[3]! += 2 * (a0 * a3 + a1 * a2);
    sq[4]! += 2 * a1 * a3 + a2 * a2;
    sq[5]! += 2 * a2 * a3;
    sq[6]! += a3 * a3;
    // A holder adds less than 2^50 to each square limb: carried every fourth, none passes 2^53.
    if ((i & 3) === 3) carry(sq);
    if ((i & 15) === 15) carry(pair);
    if ((i & 1023) === 1023) carry(sum);
    for (; next < wanted.length && wanted[next]! <= i + 1; next++) {
      if (wanted[next] === i + 1) prefix.set(i + 1, limbsToBigInt(sum));
    }
  }
  const supply = limbsToBigInt(sum);
  return { holders: n, supply, pairDiff: limbsToBigInt(pair), sumSq: limbsToBigInt(sq), prefix, nakamoto: nakamotoOf(s, supply) };
}

/** The fewest of the richest holders whose balances exceed supply / 2, walking down from the richest. */
function nakamotoOf(s: SortedBalances, supply: bigint): number {
  if (s.n === 0) return 0;
  // Walk with doubles to near the answer, then settle it exactly.
  const half = Number(supply) / 2;
  let approx = 0;
  let k = 0;
  while (k < s.n && approx <= half) {
    const i = s.n - 1 - k;
    approx += s.l3[i]! * BASE ** 3 + s.l2[i]! * BASE ** 2 + s.l1[i]! * BASE + s.l0[i]!;
    k++;
  }
  const acc = new Float64Array(6);
  for (let j = 0; j < k; j++) {
    const i = s.n - 1 - j;
    acc[0]! += s.l0[i]!; acc[1]! += s.l1[i]!; acc[2]! += s.l2[i]!; acc[3]! += s.l3[i]!;
    if ((j & 1023) === 1023) carry(acc);
  }
  let top = limbsToBigInt(acc);
  const value = (i: number) => limbsToBigInt(s.at(i));
  while (2n * top <= supply && k < s.n) top += value(s.n - 1 - k++);
  while (k > 1 && 2n * (top - value(s.n - k)) > supply) top -= value(s.n - k--);
  return k;
}
