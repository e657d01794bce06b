/**
 * Who acts: the activity model's tiers of user accounts. A tier is picked by weight, then an
 * account uniformly inside it, so a handful of heavy accounts make a large share of transactions
 * and most accounts make a few (a heavy tail without per-account weights). Every account joins
 * with a retirement day after which it is never picked again: accounts stop moving at all points
 * of history, which gives dormant balances of every age.
 */
import { Tier, type Ledger } from './ledger.ts';
import type { Rng } from './rng.ts';

/** Share of picks per tier: casual, regular, heavy (whales are picked only by whale actions). */
const TIER_PICK_WEIGHTS: readonly number[] = [0, 0.35, 0.4, 0.25];
/** Retirement day meaning "never". */
export const FOREVER = 1 << 30;

export class Population {
  private readonly members: number[][] = [[], [], [], [], []];
  private readonly retiring = new Map<number, number[]>();

  constructor(private readonly ledger: Ledger) {}

  count(tier: Tier): number {
    return this.members[tier]!.length;
  }

  /** Adds an account to a tier until `retireDay` (a day index of the chain's history). */
  join(id: number, tier: Tier, retireDay: number): void {
    if (tier === Tier.None) return;
    const list = this.members[tier]!;
    this.ledger.tier[id] = tier;
    this.ledger.tierSlot[id] = list.length;
    list.push(id);
    if (retireDay < FOREVER) {
      const bucket = this.retiring.get(retireDay);
      if (bucket) bucket.push(id);
      else this.retiring.set(retireDay, [id]);
    }
  }

  leave(id: number): void {
    const tier = this.ledger.tier[id]!;
    if (tier === Tier.None) return;
    const list = this.members[tier]!;
    const slot = this.ledger.tierSlot[id]!;
    const last = list.pop()!;
    if (last !== id) {
      list[slot] = last;
      this.ledger.tierSlot[last] = slot;
    }
    this.ledger.tier[id] = Tier.None;
  }

  /** Retires every account whose last day is before `day`. Call once per new day, in order. */
  retireBefore(day: number): void {
    const bucket = this.retiring.get(day - 1);
    if (!bucket) return;
    this.retiring.delete(day - 1);
    for (const id of bucket) this.leave(id);
  }

  /** A random active account (casual, regular or heavy), or -1 when there is none. */
  pick(rng: Rng): number {
    let x = rng.float();
    for (let tier = Tier.Casual; tier <= Tier.Heavy; tier++) {
      x -= TIER_PICK_WEIGHTS[tier]!;
      if (x < 0 || tier === Tier.Heavy) {
        const list = this.members[tier]!.length > 0 ? this.members[tier]! : this.nonEmpty();
        return list.length === 0 ? -1 : list[rng.int(list.length)]!;
      }
    }
    return -1;
  }

  pickFrom(rng: Rng, tier: Tier): number {
    const list = this.members[tier]!;
    return list.length === 0 ? -1 : list[rng.int(list.length)]!;
  }

  private nonEmpty(): number[] {
    for (let tier = Tier.Regular; tier >= Tier.Casual; tier--) if (this.members[tier]!.length > 0) return this.members[tier]!;
    return this.members[Tier.Heavy]!;
  }
}

/** Lifetime in days of a new account of a tier: heavy-tailed, some never retire. */
export function lifetimeDays(rng: Rng, tier: Tier): number {
  const forever = tier === Tier.Heavy ? 0.6 : tier === Tier.Regular ? 0.3 : tier === Tier.Whale ? 0.8 : 0.12;
  if (rng.chance(forever)) return FOREVER;
  const mean = tier === Tier.Heavy ? 200 : tier === Tier.Regular ? 90 : 20;
  return 1 + Math.floor(rng.exponential(mean) * (rng.chance(0.2) ? 4 : 1));
}

/** The tier of a newly funded user account (receive-only hodlers get Tier.None). */
export function newUserTier(rng: Rng, hodlerShare: number): Tier {
  const x = rng.float();
  if (x < hodlerShare) return Tier.None;
  const y = rng.float();
  return y < 0.01 ? Tier.Heavy : y < 0.16 ? Tier.Regular : Tier.Casual;
}
