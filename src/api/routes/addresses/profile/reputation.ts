/**
 * Reputation (docs/metrics.md, "Reputation"): a 0-100 score that adds points for age, activity,
 * holdings, curation and recent activity, less a penalty for a pow address that can no longer
 * sign, and a classification by score band.
 */
import { isSentinel } from '../../../../chain/chains.ts';
import type { AddressFacts } from '../../../../domain/address-facts.ts';
import { holderTier } from '../../../../domain/holder-tiers.ts';
import type { XmssFigures } from './xmss.ts';
import { DAY_SECONDS } from '../../../../time.ts';

/** Logical transaction counts that earn activity points (5 each). */
const ACTIVITY_STEPS = [1, 10, 100, 1_000, 10_000];

/** Score bands, highest first. */
const REPUTATION_BANDS = [
  { min: 80, classification: 'trusted' },
  { min: 60, classification: 'established' },
  { min: 40, classification: 'moderate' },
  { min: 20, classification: 'limited' },
  { min: 0, classification: 'minimal' },
] as const;

interface Reputation {
  score: number;
  classification: string;
}

export function reputation(f: AddressFacts, xmss: XmssFigures | null): Reputation {
  if (!f.exists) return { score: 0, classification: 'unknown' };
  if (isSentinel(f.chain, f.address)) return { score: 0, classification: 'protocol' };
  const now = f.tipTs ?? 0;
  const ageDays = f.appeared === null ? 0 : Math.max(0, Math.floor((now - f.appeared) / DAY_SECONDS));
  const age = Math.min(25, Math.floor(ageDays / 30));
  const activity = 5 * ACTIVITY_STEPS.filter((step) => f.txCount >= step).length;
  const tier = holderTier(f.chain, f.balance);
  const holdings = tier ? 2 + 2 * tier.index : 0;
  const curated = f.exchange ? (f.exchange.confirmed ? 20 : 5) : f.labelCategory ? 20 : 0;
  const lastActive = f.lastSeen ?? f.appeared;
  const recent = lastActive !== null && now - lastActive <= 90 * DAY_SECONDS ? 10 : 0;
  const penalty = xmss?.status === 'exhausted' ? 20 : 0;
  const score = Math.max(0, Math.min(100, age + activity + holdings + curated + recent - penalty));
  return { score, classification: REPUTATION_BANDS.find((band) => score >= band.min)!.classification };
}
