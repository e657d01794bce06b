/**
 * The staking figures of one UTC day of the pos chain, from its beacon node's standard API:
 * active validators, stake, `nakamoto_33`, net consensus rewards (attestations per epoch, block
 * proposals and sync committee per slot, less the initial penalty of the validators slashed that day;
 * possibly negative), rewarded validators and slashings (docs/metrics.md, "Staking"); and per
 * validator, its balances at the day's end and its net rewards, and the proposer of each block
 * (docs/api-validators.md). Fetching and arithmetic only: ingest/staking-sync.ts decides which days
 * and writes them.
 */
import type { StakingDayRow, ValidatorDayRow } from '../../chain/model.ts';
import type { BeaconClient, BeaconValidator } from './client.ts';

export const PLANCK_PER_GWEI = 10n ** 9n;

/** A staking day computed from the beacon node. */
export type DayFigures = Omit<StakingDayRow, 'chain'>;

const isActive = (v: BeaconValidator) => v.status.startsWith('active_');

/** Fewest validators (largest first) whose effective balance exceeds a third of the total. */
export function nakamoto33(validators: BeaconValidator[]): number | null {
  const stakes = validators.filter(isActive).map((v) => v.effectiveBalance).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const total = stakes.reduce((sum, s) => sum + s, 0n);
  if (total === 0n) return null;
  let held = 0n;
  for (let i = 0; i < stakes.length; i++) {
    held += stakes[i]!;
    if (held * 3n > total) return i + 1;
  }
  return stakes.length;
}

/** The block of a slot: who proposed it and the proposer's reward for it (gwei). */
export interface Proposal {
  slot: number;
  proposerIndex: number;
  total: bigint;
}

/** What the rewards endpoints report over some epochs: net rewards per validator (gwei), and each slot's block. */
export interface EpochRewards {
  perValidator: Map<number, bigint>;
  /** The slots with a block, in slot order. */
  proposals: Proposal[];
}

/** Net rewards per validator (gwei) over `epochs`, and the proposer of each of their blocks. */
export async function dayRewards(beacon: BeaconClient, epochs: number[], slotsPerEpoch: number): Promise<EpochRewards> {
  const totals = new Map<number, bigint>();
  const proposals: Proposal[] = [];
  const add = (validator: number, gwei: bigint) => totals.set(validator, (totals.get(validator) ?? 0n) + gwei);
  await Promise.all(
    epochs.map(async (epoch) => {
      // Slot 0 holds the genesis block, which no one proposed: nothing to reward, and qrysm's block
      // rewards replay the state from the slot before (slot − 1 of an unsigned 0).
      const slots = Array.from({ length: slotsPerEpoch }, (_, i) => epoch * slotsPerEpoch + i).filter((slot) => slot > 0);
      const [attestations, blocks, sync] = await Promise.all([
        beacon.getAttestationsRewards(epoch),
        Promise.all(slots.map((slot) => beacon.getBlockRewards(slot))),
        Promise.all(slots.map((slot) => beacon.getSyncCommitteeRewards(slot))),
      ]);
      for (const [validator, gwei] of attestations) add(validator, gwei);
      blocks.forEach((block, i) => {
        if (!block) return;
        add(block.proposerIndex, block.total);
        proposals.push({ slot: slots[i]!, proposerIndex: block.proposerIndex, total: block.total });
      });
      for (const committee of sync) for (const [validator, gwei] of committee ?? []) add(validator, gwei);
    }),
  );
  return { perValidator: totals, proposals: proposals.sort((a, b) => a.slot - b.slot) };
}

/** A day's net rewards per validator (gwei), the initial slashing penalties included, and the validators slashed during it. */
export interface NetRewards {
  perValidator: Map<number, bigint>;
  newlySlashed: BeaconValidator[];
}

/**
 * `minSlashingPenaltyQuotient`: the spec's MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX. No rewards endpoint
 * reports the penalty `slash_validator` takes (effective balance ÷ that quotient), so it is charged
 * here to each validator slashed during the day, from its effective balance at the day's start.
 */
export function netRewards(start: BeaconValidator[], end: BeaconValidator[], rewards: Map<number, bigint>, minSlashingPenaltyQuotient: number): NetRewards {
  const startOf = new Map(start.map((v) => [v.index, v]));
  const newlySlashed = end.filter((v) => v.slashed && !startOf.get(v.index)?.slashed);
  const perValidator = new Map(rewards);
  for (const v of newlySlashed) {
    const effective = startOf.get(v.index)?.effectiveBalance ?? v.effectiveBalance;
    perValidator.set(v.index, (perValidator.get(v.index) ?? 0n) - effective / BigInt(minSlashingPenaltyQuotient));
  }
  return { perValidator, newlySlashed };
}

/** The day's figures from the state at its end and its net rewards. */
export function dayFigures(day: string, end: BeaconValidator[], net: NetRewards): DayFigures {
  const active = end.filter(isActive);
  let total = 0n;
  let rewarded = 0;
  for (const gwei of net.perValidator.values()) {
    total += gwei;
    if (gwei > 0n) rewarded++;
  }
  return {
    day,
    activeValidators: active.length,
    totalStaked: active.reduce((sum, v) => sum + v.effectiveBalance, 0n) * PLANCK_PER_GWEI,
    rewards: total * PLANCK_PER_GWEI,
    rewardedValidators: rewarded,
    slashings: net.newlySlashed.length,
    nakamoto33: nakamoto33(end),
  };
}

/** Each validator of the day's end state with its balances then and its net rewards of the day (planck). */
export function validatorDays(day: string, end: BeaconValidator[], net: NetRewards): Omit<ValidatorDayRow, 'chain'>[] {
  return end.map((v) => ({
    validatorIndex: v.index,
    day,
    status: v.status,
    balance: v.balance * PLANCK_PER_GWEI,
    effectiveBalance: v.effectiveBalance * PLANCK_PER_GWEI,
    rewards: (net.perValidator.get(v.index) ?? 0n) * PLANCK_PER_GWEI,
  }));
}
