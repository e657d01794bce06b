/**
 * The generator's only source of randomness: sfc32 (Chris Doty-Humphrey's Small Fast Chaotic
 * PRNG), seeded from the world seed and a label per stream. Every decision of the generator comes
 * from a stream of this kind, so a seed fixes the whole world. Floats from here may choose sizes
 * and shapes; amounts are always derived from them by integer arithmetic (see `fractionOf`).
 */

/** Mixes a seed with labels into a 32-bit stream seed (FNV-1a over the labels, then murmur3's finaliser). */
function deriveSeed(seed: number, ...labels: (string | number)[]): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (const label of labels) {
    const text = String(label);
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0xff;
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number, ...labels: (string | number)[]) {
    this.a = deriveSeed(seed, 'a', ...labels);
    this.b = deriveSeed(seed, 'b', ...labels);
    this.c = deriveSeed(seed, 'c', ...labels);
    this.d = 1;
    for (let i = 0; i < 16; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n) for 0 < n <= 2^32. */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Uniform integer in [min, max]. */
  range(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)]!;
  }

  /** Index into `cumulative` (ascending partial sums of weights ending in the total). */
  weighted(cumulative: readonly number[]): number {
    const x = this.float() * cumulative[cumulative.length - 1]!;
    let i = 0;
    while (cumulative[i]! <= x) i++;
    return i;
  }

  /** Standard normal (Box-Muller; one value per call for simplicity). */
  normal(): number {
    const u = 1 - this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.float());
  }

  /** Exponential with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.float()) * mean;
  }

  /** Poisson with mean `lambda` (Knuth's product method below 30, a rounded normal above). */
  poisson(lambda: number): number {
    if (lambda <= 0) return 0;
    if (lambda < 30) {
      const limit = Math.exp(-lambda);
      let k = 0;
      let p = this.float();
      while (p > limit) {
        k++;
        p *= this.float();
      }
      return k;
    }
    return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * this.normal()));
  }

  /** Pareto-distributed value >= min with tail index alpha (heavier tail for smaller alpha). */
  pareto(min: number, alpha: number): number {
    return min / Math.pow(1 - this.float(), 1 / alpha);
  }

  /** Log-uniform value in [min, max). */
  logUniform(min: number, max: number): number {
    return min * Math.pow(max / min, this.float());
  }
}

const FRACTION_BITS = 24;
const FRACTION_ONE = 1 << FRACTION_BITS;

/** `amount * fraction`, rounded down, by integer arithmetic (fraction in [0, 1], 24-bit resolution). */
export function fractionOf(amount: bigint, fraction: number): bigint {
  const scaled = Math.floor(Math.min(1, Math.max(0, fraction)) * FRACTION_ONE);
  return (amount * BigInt(scaled)) >> BigInt(FRACTION_BITS);
}

/** A whole number of coins (from a float size) in the chain's smallest unit. */
export function coins(count: number, unitsPerCoin: bigint): bigint {
  return BigInt(Math.max(0, Math.floor(count))) * unitsPerCoin;
}

/** `count` coins with a fractional part of `milli` thousandths, in the smallest unit. */
export function coinsMilli(milliCoins: number, unitsPerCoin: bigint): bigint {
  return (BigInt(Math.max(0, Math.floor(milliCoins))) * unitsPerCoin) / 1000n;
}

/** Ascending partial sums of `weights`, for `Rng.weighted`. */
export function cumulative(weights: number[]): number[] {
  let sum = 0;
  return weights.map((w) => (sum += w));
}

/** Splits `total` into `count` positive-ish parts with random weights (integer arithmetic). */
export function splitInto(out: bigint[], total: bigint, count: number, rng: Rng): void {
  if (count === 1) {
    out.push(total);
    return;
  }
  // Skewed weights (u^3: a few large parts, many small ones), summed as numbers; each part is
  // then total * weight / sum in integers, and the last takes the rounding remainder.
  const weights: number[] = [];
  let sum = 0;
  for (let i = 0; i < count; i++) {
    const w = 1 + Math.floor(rng.float() ** 3 * 10_000);
    weights.push(w);
    sum += w;
  }
  const sumBig = BigInt(sum);
  let given = 0n;
  for (let i = 0; i < count - 1; i++) {
    const part = (total * BigInt(weights[i]!)) / sumBig;
    out.push(part);
    given += part;
  }
  out.push(total - given);
}

export function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

export function minBig(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
