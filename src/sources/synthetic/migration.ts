/**
 * The pow-to-pos migration plan, shared by both chains' generators so that each can be generated
 * (and resumed) on its own: who burns how much on pow and when, and when the claimant receives the
 * mint on pos (value = burned shor x 10^9 planck). The pow generator picks the burning address
 * itself (any holder that can afford it); the pos side only needs the amount and the claimant.
 */
import { PLANCK_PER_SHOR } from '../../chain/chains.ts';
import { randomHex, posAddress } from './hex.ts';
import { DAY_SECONDS } from '../../time.ts';
import type { ResolvedOptions } from './options.ts';
import { Rng, coinsMilli } from './rng.ts';

export interface MigrationPlanItem {
  accountId: string;
  /** The burn goes into the first pow block at or after this time. */
  burnTs: number;
  amountShor: bigint;
  /** The mint goes into the first pos block at or after this time; null: not claimed by the end. */
  claimTs: number | null;
  /** The pos address that receives the mint. */
  claimant: string;
}

/** Most shor the plan burns in all: keeps every burn affordable by some holder. */
const MAX_TOTAL_BURN_SHOR = 4_000_000n * 10n ** 9n;
/** The burn lands within a block or two of `burnTs`; claims come well after it. */
const MIN_CLAIM_DELAY_SECONDS = 15 * 60;

export function planMigrations(options: ResolvedOptions): MigrationPlanItem[] {
  const cutover = options.migrationCutover;
  if (cutover === null) return [];
  const lastBurn = options.end - 3600;
  if (lastBurn <= cutover) return [];
  const rng = new Rng(options.seed, 'migration');
  const days = (lastBurn - cutover) / DAY_SECONDS;
  const count = Math.max(3, Math.round(days * Math.max(3, options.scale * 0.004)));
  const burnTimes = Array.from({ length: count }, () => cutover + Math.floor((lastBurn - cutover) * Math.pow(rng.float(), 1.5))).sort((a, b) => a - b);
  let total = 0n;
  return burnTimes.map((burnTs) => {
    // Heavy-tailed: most migrate a few hundred coins, a few migrate whale-sized holdings.
    let amountShor = coinsMilli(Math.min(400_000, rng.pareto(20, 0.9)) * 1000, 10n ** 9n);
    if (total + amountShor > MAX_TOTAL_BURN_SHOR) amountShor = coinsMilli(100_000, 10n ** 9n);
    total += amountShor;
    const delay = MIN_CLAIM_DELAY_SECONDS + Math.floor(rng.exponential(DAY_SECONDS * (rng.chance(0.2) ? 6 : 0.5)));
    const claimTs = rng.chance(0.08) || burnTs + delay > options.end ? null : burnTs + delay;
    return { accountId: randomHex(rng, 4), burnTs, amountShor, claimTs, claimant: posAddress(rng) };
  });
}

/** The pos mint of a migration: burned shor x 10^9. */
export function mintedPlanck(item: MigrationPlanItem): bigint {
  return item.amountShor * PLANCK_PER_SHOR;
}
