/**
 * The staking figures of the pos chain, from its beacon node, written with idempotent upserts:
 * - `validators`: the latest state of every validator (from the head state);
 * - `staking_daily`: per UTC day, over the finalized epochs that start in that day:
 *   - `active_validators`, `total_staked` (sum of effective balances of active validators) and
 *     `nakamoto_33` (fewest validators whose stake exceeds a third), from the state at the day's
 *     last processed slot;
 *   - `rewards`: net consensus rewards, the sum of the standard rewards endpoints (attestations
 *     per epoch; block proposals and sync committee per slot), in planck, possibly negative;
 *   - `rewarded_validators`: validators whose net reward of the day is positive;
 *   - `slashings`: validators slashed at the day's end that were not at its start.
 * A run resumes at the last day written (recomputing it: it may have been partial) and never
 * goes past the finalized checkpoint, so a reorg of the beacon chain cannot touch what it wrote.
 */
import sql from 'sql-template-tag';
import type { Logger } from 'pino';
import type { Store } from '../../store/store.ts';
import type { StakingDayRow, ValidatorRow } from '../../chain/model.ts';
import { writeStaking } from '../../ingest/curated.ts';
import type { BeaconClient, BeaconValidator } from './client.ts';
import { DAY_SECONDS, dayStart, formatDay } from '../../time.ts';

const PLANCK_PER_GWEI = 10n ** 9n;

export interface StakingSyncOptions {
  logger?: Logger;
  /** Most days to process in this run (the rest next time). Default: all. */
  maxDays?: number;
  /** Clock (Unix seconds) for `updated_ts`. */
  now?: () => number;
}

export interface StakingSyncResult {
  validators: number;
  days: string[];
  finalizedEpoch: number;
}

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

export async function syncStaking(db: Store, beacon: BeaconClient, options: StakingSyncOptions = {}): Promise<StakingSyncResult> {
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const [{ genesisTime }, { secondsPerSlot, slotsPerEpoch }, { finalizedEpoch }] = await Promise.all([
    beacon.getGenesis(),
    beacon.getSpec(),
    beacon.getStateFinalityCheckpoints('head'),
  ]);
  const epochSeconds = secondsPerSlot * slotsPerEpoch;
  const epochStart = (epoch: number) => genesisTime + epoch * epochSeconds;

  const head = await beacon.getStateValidators('head');
  await upsertValidators(db, head, now());

  // Epochs before the finalized checkpoint are complete and final.
  const lastEpoch = finalizedEpoch - 1;
  const days: string[] = [];
  if (lastEpoch >= 0) {
    const [resume] = await db.query<{ day: string | Date | null }>('staking.resume', sql`SELECT max(day)::text AS day FROM staking_daily WHERE chain = 'pos'`);
    const resumeDay = resume?.day ? String(resume.day).slice(0, 10) : formatDay(genesisTime);
    let epoch = Math.max(0, Math.ceil((dayStart(resumeDay) - genesisTime) / epochSeconds));
    let previous: BeaconValidator[] | null = null;
    while (epoch <= lastEpoch && (options.maxDays === undefined || days.length < options.maxDays)) {
      const day = formatDay(epochStart(epoch));
      const nextDay = dayStart(day) + DAY_SECONDS;
      const epochs: number[] = [];
      for (let e = epoch; e <= lastEpoch && epochStart(e) < nextDay; e++) epochs.push(e);
      const firstSlot = epochs[0]! * slotsPerEpoch;
      const lastSlot = (epochs.at(-1)! + 1) * slotsPerEpoch - 1;
      previous ??= firstSlot === 0 ? [] : await beacon.getStateValidators(String(firstSlot - 1));
      const [end, rewards] = await Promise.all([beacon.getStateValidators(String(lastSlot)), dayRewards(beacon, epochs, slotsPerEpoch)]);
      const figures = dayFigures(day, previous, end, rewards);
      await upsertDay(db, figures);
      options.logger?.info({ day, epochs: epochs.length, rewards: figures.rewards.toString() }, 'staking day written');
      days.push(day);
      previous = end;
      epoch = epochs.at(-1)! + 1;
    }
  }
  return { validators: head.length, days, finalizedEpoch };
}

/** Net rewards per validator (gwei) over `epochs`. */
async function dayRewards(beacon: BeaconClient, epochs: number[], slotsPerEpoch: number): Promise<Map<number, bigint>> {
  const totals = new Map<number, bigint>();
  const add = (validator: number, gwei: bigint) => totals.set(validator, (totals.get(validator) ?? 0n) + gwei);
  await Promise.all(
    epochs.map(async (epoch) => {
      const slots = Array.from({ length: slotsPerEpoch }, (_, i) => epoch * slotsPerEpoch + i);
      const [attestations, blocks, sync] = await Promise.all([
        beacon.getAttestationsRewards(epoch),
        Promise.all(slots.map((slot) => beacon.getBlockRewards(slot))),
        Promise.all(slots.map((slot) => beacon.getSyncCommitteeRewards(slot))),
      ]);
      for (const [validator, gwei] of attestations) add(validator, gwei);
      for (const block of blocks) if (block) add(block.proposerIndex, block.total);
      for (const committee of sync) for (const [validator, gwei] of committee ?? []) add(validator, gwei);
    }),
  );
  return totals;
}

export function dayFigures(day: string, start: BeaconValidator[], end: BeaconValidator[], rewards: Map<number, bigint>): DayFigures {
  const slashedBefore = new Set(start.filter((v) => v.slashed).map((v) => v.index));
  const active = end.filter(isActive);
  let net = 0n;
  let rewarded = 0;
  for (const gwei of rewards.values()) {
    net += gwei;
    if (gwei > 0n) rewarded++;
  }
  return {
    day,
    activeValidators: active.length,
    totalStaked: active.reduce((sum, v) => sum + v.effectiveBalance, 0n) * PLANCK_PER_GWEI,
    rewards: net * PLANCK_PER_GWEI,
    rewardedValidators: rewarded,
    slashings: end.filter((v) => v.slashed && !slashedBefore.has(v.index)).length,
    nakamoto33: nakamoto33(end),
  };
}

async function upsertDay(db: Store, figures: DayFigures): Promise<void> {
  await db.transaction('staking.daily', (tx) => writeStaking(tx, [{ chain: 'pos', ...figures }], []));
}

async function upsertValidators(db: Store, validators: BeaconValidator[], stamp: number): Promise<void> {
  const rows: ValidatorRow[] = validators.map((v) => ({
    chain: 'pos',
    validatorIndex: v.index,
    pubkey: v.pubkey,
    withdrawalAddress: v.withdrawalAddress,
    status: v.status,
    balance: v.balance * PLANCK_PER_GWEI,
    effectiveBalance: v.effectiveBalance * PLANCK_PER_GWEI,
    slashed: v.slashed,
    activationEpoch: v.activationEpoch,
    exitEpoch: v.exitEpoch,
    updatedTs: stamp,
  }));
  await db.transaction('staking.validators', (tx) => writeStaking(tx, [], rows));
}
