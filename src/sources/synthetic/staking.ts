/**
 * The pos consensus layer, modelled as the beacon node would report it: validators joining,
 * exiting and occasionally being slashed, daily net rewards (negative on bad days and, with few
 * validators, on a slashing day: the initial penalty is in the day's net), and the
 * withdrawals that sweep rewards (and whole balances after exit) to each validator's withdrawal
 * address. It is computed up front from the seed: the pos generator only places the withdrawals
 * in blocks and picks each block's proposer among the day's active validators.
 *
 * Units: balances are tracked in gwei (as the beacon API reports) and exposed in planck.
 */
import { PLANCK_PER_SHOR } from '../../chain/chains.ts';
import type { ChainPlan } from './actors.ts';
import { randomHex } from './hex.ts';
import { DAY_SECONDS, formatDay } from '../../time.ts';
import type { ResolvedOptions } from './options.ts';
import { Rng } from './rng.ts';
import type { StakingDayRow, ValidatorRow } from '../../chain/model.ts';

/** A generated staking day: every figure known. */
export type StakingDay = StakingDayRow & { chain: 'pos'; nakamoto33: number };

/** A generated validator's state at the end of the history: every validator has an execution withdrawal address. */
export type ValidatorState = ValidatorRow & { chain: 'pos'; withdrawalAddress: string };

export interface WithdrawalEvent {
  ts: number;
  validatorIndex: number;
  /** Ledger id of the withdrawal address. */
  account: number;
  /** Planck (a whole number of gwei). */
  amount: bigint;
}

export interface StakingModel {
  daily: StakingDay[];
  validators: ValidatorState[];
  /** In time order; their position is the global withdrawal index. */
  withdrawals: WithdrawalEvent[];
  /** Per UTC day since the day of pos genesis: indices of validators active that day. */
  activeByDay: number[][];
  /** Ledger id of each validator's fee recipient (its operator's address). */
  feeRecipient: number[];
  /** Unix seconds of the start of day index 0. */
  firstDayStart: number;
  /**
   * A live world's validators as the beacon shows them at the end of each day from the day its
   * history ends on (options.live), by day (`YYYY-MM-DD`); empty for a world without a live part.
   */
  validatorsByDay: Map<string, ValidatorState[]>;
}

/** The stake of one validator (QRL 2.0: 40,000 quanta), in gwei. */
const VALIDATOR_STAKE_GWEI = 40_000n * 10n ** 9n;
const GENESIS_VALIDATORS = 256;
/** The effective balance moves in whole steps of 1,000 quanta (in gwei). */
const EFFECTIVE_STEP_GWEI = 1_000n * 10n ** 9n;

interface Validator {
  index: number;
  account: number;
  pubkey: string;
  /** Unix seconds: deposit seen, becomes active, exits (null: still active). */
  depositTs: number;
  activeTs: number;
  exitTs: number | null;
  slashedTs: number | null;
  /** Gwei: the initial slashing penalty (1/32 of the effective balance), charged to the day of `slashedTs`. */
  slashPenalty: bigint;
  effective: bigint;
  /** Gwei above the effective balance (negative after penalties). */
  excess: bigint;
  withdrawn: boolean;
  /** Seconds into each day at which the withdrawal sweep reaches this validator. */
  sweepPhase: number;
}

export function modelStaking(options: ResolvedOptions, plan: ChainPlan): StakingModel {
  const rng = new Rng(options.seed, 'pos', 'staking');
  const start = options.posStart;
  const end = options.end;
  const epochSeconds = options.posSlotsPerEpoch * options.posSlotSeconds;
  const firstDayStart = Math.floor(start / DAY_SECONDS) * DAY_SECONDS;
  const dayCount = Math.floor((end - firstDayStart) / DAY_SECONDS) + 1;
  const services = plan.stakingServices;
  const solo = plan.soloStakers;
  const validators: Validator[] = [];

  const operator = (): number => {
    const x = rng.float();
    if (x < 0.3) return services[0]!;
    if (x < 0.48) return services[1]!;
    if (x < 0.6) return services[2]!;
    return solo[rng.int(solo.length)]!;
  };
  const addValidator = (depositTs: number, activeTs: number) => {
    validators.push({
      index: validators.length,
      account: operator(),
      pubkey: '0x' + randomHex(rng, 12),
      depositTs,
      activeTs,
      exitTs: null,
      slashedTs: null,
      slashPenalty: 0n,
      effective: VALIDATOR_STAKE_GWEI,
      excess: 0n,
      withdrawn: false,
      sweepPhase: rng.int(DAY_SECONDS),
    });
  };
  for (let i = 0; i < GENESIS_VALIDATORS; i++) addValidator(start, start);

  // Joins, exits and slashings, decided day by day; one slashing is always there (40% into the history).
  const forcedSlashTs = start + Math.floor((end - start) * 0.4);
  const slashTimes: number[] = [forcedSlashTs];
  for (let day = 0; day < dayCount; day++) {
    const dayStart = firstDayStart + day * DAY_SECONDS;
    const joins = rng.poisson(3);
    for (let j = 0; j < joins; j++) {
      const depositTs = dayStart + rng.int(DAY_SECONDS);
      if (depositTs > start && depositTs < end) addValidator(depositTs, depositTs + DAY_SECONDS / 2 + rng.int(DAY_SECONDS));
    }
    const exits = rng.poisson(0.3);
    for (let e = 0; e < exits; e++) {
      const v = validators[rng.int(validators.length)]!;
      const ts = dayStart + rng.int(DAY_SECONDS);
      if (v.exitTs === null && ts > v.activeTs && ts > start && ts < end) v.exitTs = ts;
    }
    if (rng.chance(0.05)) slashTimes.push(dayStart + rng.int(DAY_SECONDS));
  }
  for (const ts of slashTimes) {
    if (ts <= start || ts >= end) continue;
    const candidates = validators.filter((v) => v.exitTs === null && v.activeTs < ts);
    if (candidates.length === 0) continue;
    const v = candidates[rng.int(candidates.length)]!;
    v.slashedTs = ts;
    v.exitTs = ts + DAY_SECONDS;
    // The initial penalty: 1/32 of the effective balance, charged on the day of the slashing.
    v.slashPenalty = v.effective / 32n;
  }

  const epoch = (ts: number) => Math.max(0, Math.floor((ts - start) / epochSeconds));
  /** What the beacon shows of `v` at `ts`, with the balances it holds as the day loop stands. */
  const stateOf = (v: Validator, ts: number): ValidatorState => ({
    chain: 'pos',
    validatorIndex: v.index,
    pubkey: v.pubkey,
    withdrawalAddress: plan.accounts[v.account]!.address,
    status: statusAt(v, ts),
    balance: (v.effective + v.excess) * PLANCK_PER_SHOR,
    effectiveBalance: v.effective * PLANCK_PER_SHOR,
    slashed: v.slashedTs !== null && v.slashedTs <= ts,
    activationEpoch: v.activeTs <= ts ? epoch(v.activeTs) : null,
    exitEpoch: v.exitTs === null ? null : epoch(v.exitTs),
    updatedTs: ts,
  });
  const liveFromDay = options.live ? Math.floor(options.live.from / DAY_SECONDS) * DAY_SECONDS - DAY_SECONDS : null;
  const validatorsByDay = new Map<string, ValidatorState[]>();
  const daily: StakingDay[] = [];
  const activeByDay: number[][] = [];
  const events: WithdrawalEvent[] = [];
  let aprPpm = 42_000;
  const isActive = (v: Validator, ts: number) => v.activeTs <= ts && (v.exitTs === null || v.exitTs > ts);

  for (let day = 0; day < dayCount; day++) {
    const dayStart = firstDayStart + day * DAY_SECONDS;
    const dayEnd = Math.min(dayStart + DAY_SECONDS, end);
    const from = Math.max(dayStart, start);
    // Sweeps of the day: rewards credited up to the day's start, and whole balances a day after exit.
    for (const v of validators) {
      if (v.withdrawn) continue;
      const sweepTs = dayStart + v.sweepPhase;
      if (sweepTs <= start || sweepTs > end) continue;
      if (v.exitTs !== null && sweepTs >= v.exitTs + DAY_SECONDS) {
        const amount = v.effective + v.excess;
        if (amount > 0n) events.push({ ts: sweepTs, validatorIndex: v.index, account: v.account, amount: amount * PLANCK_PER_SHOR });
        v.effective = 0n;
        v.excess = 0n;
        v.withdrawn = true;
      } else if (v.excess > 0n && isActive(v, sweepTs)) {
        events.push({ ts: sweepTs, validatorIndex: v.index, account: v.account, amount: v.excess * PLANCK_PER_SHOR });
        v.excess = 0n;
      }
    }
    // The day's rewards, pro rata for the part of the day each validator was active.
    aprPpm = Math.min(60_000, Math.max(28_000, aprPpm + Math.round(rng.normal() * 800)));
    // Bad days: most validators offline (a client bug, a network split) and the day's net is negative. One is always there.
    const incident = rng.chance(0.04) || day === Math.floor(dayCount * 0.6);
    let rewards = 0n;
    let rewarded = 0;
    let slashings = 0;
    const active: number[] = [];
    for (const v of validators) {
      if (v.slashedTs !== null && v.slashedTs >= dayStart && v.slashedTs < dayStart + DAY_SECONDS) {
        slashings++;
        // The beacon node reports the penalty in no rewards endpoint; the day's net counts it (docs/metrics.md, "Staking").
        rewards -= v.slashPenalty;
        // The balance loses it from the slashing on; the effective balance follows in 1,000-quanta steps.
        const balance = v.effective + v.excess - v.slashPenalty;
        v.effective = (balance / EFFECTIVE_STEP_GWEI) * EFFECTIVE_STEP_GWEI;
        v.excess = balance - v.effective;
      }
      const activeFrom = Math.max(from, v.activeTs);
      const activeTo = Math.min(dayEnd, v.exitTs ?? dayEnd);
      if (activeTo <= activeFrom) continue;
      active.push(v.index);
      const seconds = BigInt(activeTo - activeFrom);
      const jitterPpm = BigInt(Math.round(1_000_000 * (0.9 + 0.2 * rng.float())));
      let reward = (v.effective * BigInt(aprPpm) * jitterPpm * seconds) / (1_000_000n * 1_000_000n * 365n * BigInt(DAY_SECONDS));
      const offline = incident ? rng.chance(0.6) : rng.chance(0.02);
      if (offline) reward = -reward; // an offline validator is penalised about what it would have earned
      if (v.slashedTs !== null && v.slashedTs < activeTo) reward = 0n;
      v.excess += reward;
      rewards += reward;
      if (reward > 0n) rewarded++;
    }
    activeByDay.push(active.length > 0 ? active : [0]);
    if (liveFromDay !== null && dayStart >= liveFromDay) validatorsByDay.set(formatDay(dayStart), validators.filter((v) => v.depositTs <= dayEnd).map((v) => stateOf(v, dayEnd)));
    const staked = validators.filter((v) => isActive(v, dayEnd - 1)).map((v) => v.effective);
    daily.push({
      chain: 'pos',
      day: formatDay(dayStart),
      activeValidators: staked.length,
      totalStaked: staked.reduce((a, b) => a + b, 0n) * PLANCK_PER_SHOR,
      rewards: rewards * PLANCK_PER_SHOR,
      rewardedValidators: rewarded,
      slashings,
      nakamoto33: nakamoto(staked, 3n),
    });
  }
  events.sort((a, b) => a.ts - b.ts || a.validatorIndex - b.validatorIndex);

  const states = validators.map((v) => stateOf(v, end));
  return { daily, validators: states, withdrawals: events, activeByDay, feeRecipient: validators.map((v) => v.account), firstDayStart, validatorsByDay };
}

function statusAt(v: Validator, ts: number): string {
  if (v.activeTs > ts) return 'pending_queued';
  if (v.withdrawn) return 'withdrawal_done';
  if (v.exitTs !== null && v.exitTs <= ts) return v.slashedTs !== null ? 'exited_slashed' : 'exited_unslashed';
  if (v.slashedTs !== null && v.slashedTs <= ts) return 'active_slashed';
  if (v.exitTs !== null) return 'active_exiting';
  return 'active_ongoing';
}

/** Fewest of `stakes` whose sum exceeds 1/`part` of the total. */
function nakamoto(stakes: bigint[], part: bigint): number {
  const total = stakes.reduce((a, b) => a + b, 0n);
  if (total === 0n) return 0;
  const sorted = [...stakes].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  let sum = 0n;
  for (let i = 0; i < sorted.length; i++) {
    sum += sorted[i]!;
    if (sum * part > total) return i + 1;
  }
  return sorted.length;
}
