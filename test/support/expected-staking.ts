/**
 * Oracles of the staking and cross-chain tests, by the definitions of docs/metrics.md ("Staking",
 * "Cross-chain"), written here without the code under test.
 *
 * The staking figures are computed from validator records, the raw input of the staking sync: the
 * beacon API's `/eth/v1/beacon/states/{slot}/validators` answers (the fake beacon node's model) and,
 * for the generated world, the validator rows it hands the store. A validator is active at an epoch
 * when `activation_epoch <= epoch < exit_epoch` (the consensus specs' `is_active_validator`; a
 * beacon status `active_ongoing`, `active_exiting` or `active_slashed` means exactly that).
 *
 * `seedStakingFromBeacon` loads the store those figures are compared with, through the real pipeline
 * and staking sync; the oracles themselves use none of that code.
 */
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { syncStaking } from '../../src/ingest/staking-sync.ts';
import { createBeaconClient } from '../../src/sources/beacon/client.ts';
import type { Store } from '../../src/store/store.ts';
import type { AnalyticsWorld } from './analytics-world.ts';
import { utcDay } from './utc-day.ts';
import { addr, ChainBuilder, coins as units } from './chain-builder.ts';
import { createBeaconModel, MIN_SLASHING_PENALTY_QUOTIENT, startFakeBeacon, type BeaconModel, type FakeBeaconConfig } from '../fakes/beacon/server.ts';

/** `amount` / 10^decimals as an exact decimal string without trailing zeros. */
export function coins(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const magnitude = negative ? -amount : amount;
  const unit = 10n ** BigInt(decimals);
  const fraction = (magnitude % unit).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${magnitude / unit}${fraction ? `.${fraction}` : ''}`;
}

/** `100 × num / den` to 15 decimal places, as a number (the route converts an exact quotient too). */
export function pct(num: bigint, den: bigint): number {
  if (den === 0n) return 0;
  const scale = 10n ** 15n;
  return Number((num * 100n * scale) / den) / 1e15;
}

/** Equal within rounding of the last digits. */
export function close(actual: number, expected: number): boolean {
  return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected));
}

/** The last `days` of `all` (oldest first): a window of whole days ending with the latest one. */
export function lastDays<T>(all: T[], days: number): T[] {
  return all.slice(Math.max(0, all.length - days));
}

/** A validator as a state lists it; epochs null when the record holds none (not yet active, no exit). */
export interface ValidatorFacts {
  index: number;
  /** Planck. */
  effectiveBalance: bigint;
  slashed: boolean;
  activationEpoch: bigint | null;
  exitEpoch: bigint | null;
}

/** Planck per gwei: the beacon API counts balances in gwei. */
const PLANCK_PER_GWEI = 10n ** 9n;
/** The beacon API's FAR_FUTURE_EPOCH (2^64 − 1): no activation or exit scheduled. */
const FAR_FUTURE_EPOCH = 2n ** 64n - 1n;

/** `activation_epoch <= epoch < exit_epoch`. */
export function isActiveValidator(v: ValidatorFacts, epoch: bigint): boolean {
  return v.activationEpoch !== null && v.activationEpoch <= epoch && (v.exitEpoch === null || epoch < v.exitEpoch);
}

/** Fewest stakes, largest first, whose sum is more than a third of their total; 0 when nothing is staked. */
export function nakamoto33(stakes: bigint[]): number {
  const total = stakes.reduce((a, b) => a + b, 0n);
  if (total === 0n) return 0;
  const sorted = [...stakes].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  let sum = 0n;
  for (let i = 0; i < sorted.length; i++) {
    sum += sorted[i]!;
    if (3n * sum > total) return i + 1;
  }
  return sorted.length;
}

/** What a validator set says at `epoch`: active validators, their effective balances summed (planck), Nakamoto 33%. */
export function validatorFigures(validators: ValidatorFacts[], epoch: bigint): { activeValidators: number; totalStaked: bigint; nakamoto33: number } {
  const stakes = validators.filter((v) => isActiveValidator(v, epoch)).map((v) => v.effectiveBalance);
  return { activeValidators: stakes.length, totalStaked: stakes.reduce((a, b) => a + b, 0n), nakamoto33: nakamoto33(stakes) };
}

/** Validators whose `slashed` flag is set in `end` and was not in `start`. */
export function newlySlashed(start: ValidatorFacts[], end: ValidatorFacts[]): ValidatorFacts[] {
  const before = new Map(start.map((v) => [v.index, v]));
  return end.filter((v) => v.slashed && !before.get(v.index)?.slashed);
}

/** One record of `GET /eth/v1/beacon/states/{slot}/validators`, as facts. */
export function beaconRecordFacts(record: { index: string; validator: { effective_balance: string; slashed: boolean; activation_epoch: string; exit_epoch: string } }): ValidatorFacts {
  const epoch = (text: string) => (BigInt(text) === FAR_FUTURE_EPOCH ? null : BigInt(text));
  return {
    index: Number(record.index),
    effectiveBalance: BigInt(record.validator.effective_balance) * PLANCK_PER_GWEI,
    slashed: record.validator.slashed,
    activationEpoch: epoch(record.validator.activation_epoch),
    exitEpoch: epoch(record.validator.exit_epoch),
  };
}

/** A staking day as docs/metrics.md defines it; amounts in planck. */
export interface ExpectedStakingDay {
  day: string;
  activeValidators: number;
  totalStaked: bigint;
  nakamoto33: number;
  slashings: number;
  /** Net rewards of every validator, the initial slashing penalty included. */
  rewards: bigint;
  rewardedValidators: number;
}

/** A day of a beacon node's finalized epochs, as the staking oracles read it from the fake node's model. */
interface BeaconDay {
  day: string;
  /** The last epoch of the day. */
  last: number;
  /** States at the slot before the day's first epoch and at the last slot of its last epoch. */
  start: ValidatorFacts[];
  end: ValidatorFacts[];
  /** The end state's records as the node answers them. */
  records: ReturnType<BeaconModel['validatorsAt']>;
  /** Net rewards of each rewarded or penalised validator (gwei), the initial slashing penalty included. */
  net: Map<number, bigint>;
  slashed: ValidatorFacts[];
}

/**
 * The days of a beacon node's finalized epochs, from the fake node's model (what its endpoints
 * answer): day D is made of the epochs that start in D and are before the finalized checkpoint
 * (complete and final); its validator set is the state at the last slot of its last epoch, compared
 * with the state at the slot before its first epoch for the slashings. Rewards, signed: each
 * validator's attestation components per epoch, each proposer's block reward and each sync committee
 * member's reward per slot with a block, less effective balance at the day's start ÷
 * MIN_SLASHING_PENALTY_QUOTIENT for each validator slashed during D.
 */
function beaconDays(model: BeaconModel): BeaconDay[] {
  const { genesisTime, secondsPerSlot, slotsPerEpoch, finalizedEpoch, validators } = model.config;
  const epochSeconds = secondsPerSlot * slotsPerEpoch;
  const state = (slot: number) => (slot < 0 ? [] : model.validatorsAt(slot).map(beaconRecordFacts));
  const epochsByDay = new Map<string, number[]>();
  for (let epoch = 0; epoch < finalizedEpoch; epoch++) {
    const day = utcDay(genesisTime + epoch * epochSeconds);
    epochsByDay.set(day, [...(epochsByDay.get(day) ?? []), epoch]);
  }
  return [...epochsByDay].map(([day, epochs]) => {
    const first = epochs[0]!;
    const last = epochs.at(-1)!;
    const start = state(first * slotsPerEpoch - 1);
    const lastSlot = (last + 1) * slotsPerEpoch - 1;
    const end = state(lastSlot);
    const net = new Map<number, bigint>();
    const add = (v: number, gwei: bigint) => net.set(v, (net.get(v) ?? 0n) + gwei);
    for (const epoch of epochs) {
      for (let v = 0; v < validators; v++) {
        const a = model.attestation(v, epoch);
        if (a) add(v, a.head + a.target + a.source + a.inclusion_delay + a.inactivity);
      }
      for (let slot = epoch * slotsPerEpoch; slot < (epoch + 1) * slotsPerEpoch; slot++) {
        const block = model.blockReward(slot);
        if (block) add(block.proposer, block.total);
        for (const [v, gwei] of model.syncRewards(slot) ?? []) add(v, gwei);
      }
    }
    const slashed = newlySlashed(start, end);
    const startOf = new Map(start.map((v) => [v.index, v]));
    for (const v of slashed) add(v.index, -((startOf.get(v.index) ?? v).effectiveBalance / PLANCK_PER_GWEI / MIN_SLASHING_PENALTY_QUOTIENT));
    return { day, last, start, end, records: model.validatorsAt(lastSlot), net, slashed };
  });
}

/** Every staking day a beacon node's finalized epochs give (beaconDays), as docs/metrics.md defines its figures. */
export function beaconStakingDays(model: BeaconModel): ExpectedStakingDay[] {
  return beaconDays(model).map(({ day, last, end, net, slashed }) => {
    const perValidator = [...net.values()];
    return {
      day,
      ...validatorFigures(end, BigInt(last)),
      slashings: slashed.length,
      rewards: perValidator.reduce((a, b) => a + b, 0n) * PLANCK_PER_GWEI,
      rewardedValidators: perValidator.filter((gwei) => gwei > 0n).length,
    };
  });
}

/** A validator's day: its record at the day's end and its net rewards of the day; amounts in planck. */
export interface ExpectedValidatorDay {
  index: number;
  day: string;
  status: string;
  balance: bigint;
  effectiveBalance: bigint;
  rewards: bigint;
}

/** Every validator of each finalized day's end state (beaconDays), oldest day first, by index within a day. */
export function beaconValidatorDays(model: BeaconModel): ExpectedValidatorDay[] {
  return beaconDays(model).flatMap(({ day, records, net }) =>
    records.map((r) => ({
      index: Number(r.index),
      day,
      status: r.status,
      balance: BigInt(r.balance) * PLANCK_PER_GWEI,
      effectiveBalance: BigInt(r.validator.effective_balance) * PLANCK_PER_GWEI,
      rewards: (net.get(Number(r.index)) ?? 0n) * PLANCK_PER_GWEI,
    })),
  );
}

/** A slot's block as the beacon node's block rewards give it; amounts in planck. */
export interface ExpectedProposal {
  slot: number;
  /** The slot's start (Unix seconds). */
  ts: number;
  proposer: number;
  reward: bigint;
}

/** The block of every slot of the finalized epochs (slot 0, the unproposed genesis block, and empty slots have none). */
export function beaconProposals(model: BeaconModel): ExpectedProposal[] {
  const { genesisTime, secondsPerSlot, slotsPerEpoch, finalizedEpoch } = model.config;
  const out: ExpectedProposal[] = [];
  for (let slot = 0; slot < finalizedEpoch * slotsPerEpoch; slot++) {
    const block = model.blockReward(slot);
    if (block) out.push({ slot, ts: genesisTime + slot * secondsPerSlot, proposer: block.proposer, reward: block.total * PLANCK_PER_GWEI });
  }
  return out;
}

/** A beacon epoch of the generated pos chain: 32 slots of 12 s. */
const WORLD_EPOCH_SECONDS = 32 * 12;

/**
 * The generated world's staking, from what it hands the store: its pos genesis time (the chain
 * setting `genesis_ts`), its end and its validator rows, which hold each validator's state at that
 * end. The staking days run from the day of pos genesis to the day of the end; the figures of the
 * last day are those of the validator rows at the epoch of the end.
 */
export function worldStaking(w: AnalyticsWorld): { days: string[]; last: { day: string; activeValidators: number; totalStaked: bigint; nakamoto33: number }; slashedValidators: number } {
  const genesis = Number(w.world.curated.settings.find((s) => s.chain === 'pos' && s.key === 'genesis_ts')!.value);
  const end = w.world.options.end;
  const facts: ValidatorFacts[] = w.world.staking.validators.map((v) => ({
    index: v.validatorIndex,
    effectiveBalance: v.effectiveBalance,
    slashed: v.slashed,
    activationEpoch: v.activationEpoch === null ? null : BigInt(v.activationEpoch),
    exitEpoch: v.exitEpoch === null ? null : BigInt(v.exitEpoch),
  }));
  const days: string[] = [];
  for (let t = Math.floor(genesis / 86_400) * 86_400; t <= end; t += 86_400) days.push(utcDay(t));
  const epoch = BigInt(Math.floor((end - genesis) / WORLD_EPOCH_SECONDS));
  return { days, last: { day: utcDay(end), ...validatorFigures(facts, epoch) }, slashedValidators: facts.filter((v) => v.slashed).length };
}

/** pos execution-layer supply at the end of `day`: genesis allocations + withdrawals + migration mints − burned fees. */
export function executionSupply(blocks: CanonicalBlock[], day: string): bigint {
  let supply = 0n;
  for (const block of blocks) {
    if (utcDay(block.timestamp) > day) break;
    for (const a of block.allocations) supply += a.amount;
    for (const w of block.withdrawals) supply += w.amount;
    for (const tx of block.transactions) {
      supply -= tx.burned;
      if (tx.migration?.role === 'mint' && tx.status !== 0) supply += tx.value;
    }
  }
  return supply;
}

export interface Leg {
  account_id: string;
  chain: 'pow' | 'pos';
  timestamp: string;
  height: number;
  tx_hash: string;
  from_addr: string;
  to_addr: string;
  value_quanta: string;
  tx_type: string;
  migration_role: string;
  index: number;
  ts: number;
}

/** Every migration leg of both chains' blocks. */
export function migrationLegs(w: AnalyticsWorld): Leg[] {
  const legs: Leg[] = [];
  for (const chain of ['pow', 'pos'] as const) {
    for (const block of w.blocks[chain]) {
      for (const tx of block.transactions) {
        if (!tx.migration) continue;
        legs.push({
          account_id: tx.migration.accountId,
          chain,
          timestamp: new Date(block.timestamp * 1000).toISOString().slice(0, 19),
          height: block.height,
          tx_hash: tx.hash,
          from_addr: tx.from,
          to_addr: tx.to ?? tx.recipients?.[0]?.to ?? '',
          value_quanta: coins(tx.value, chain === 'pow' ? 9 : 18),
          tx_type: tx.type,
          migration_role: tx.migration.role,
          index: tx.index,
          ts: block.timestamp,
        });
      }
    }
  }
  return legs;
}

/** The legs of the accounts `address` burned for (pow) or was minted to (pos), newest first, as the API shows them. */
export function historyOf(w: AnalyticsWorld, address: string) {
  const legs = migrationLegs(w);
  const accounts = new Set(legs.filter((l) => (l.migration_role === 'burn' ? l.from_addr : l.to_addr) === address && (l.migration_role === 'burn') === (l.chain === 'pow')).map((l) => l.account_id));
  return legs
    .filter((l) => accounts.has(l.account_id))
    .sort((a, b) => b.ts - a.ts || (a.chain === b.chain ? 0 : a.chain === 'pos' ? -1 : 1) || b.height - a.height || b.index - a.index)
    .map(({ index: _index, ts: _ts, ...item }) => item);
}

/**
 * A beacon chain of a few days for the staking tests: 2024-03-01 20:00 UTC genesis, epochs of an hour
 * (three slots of 20 minutes), 24 validators of 31 or 32 coins of effective balance, four joining
 * later (one after the finalized checkpoint), three slashed on two days, a missed slot now and then;
 * finalized up to epoch 58 (2024-03-04 06:00), so the staking days are 2024-03-01 to 2024-03-04.
 */
export const STAKING_BEACON: FakeBeaconConfig = {
  genesisTime: Date.parse('2024-03-01T20:00:00Z') / 1000,
  secondsPerSlot: 1200,
  slotsPerEpoch: 3,
  validators: 24,
  headSlot: 3 * 60 + 1,
  finalizedEpoch: 58,
  activation: { 20: 2, 21: 12, 22: 40, 23: 70 },
  slashedAt: { 3: 30, 7: 33, 13: 55 },
  missed: (slot) => slot % 17 === 5,
};

/**
 * A qrysm beacon node (test/fakes/beacon, flavour qrysm) with mainnet's clock: slots of 60 s, 128 a
 * epoch (7,680 s), genesis 2024-03-01 20:00 UTC, 12 validators of 39,000 or 40,000 quanta effective,
 * one joining at epoch 4, one slashed at epoch 14 (2024-03-03 01:52), a missed slot now and then;
 * finalized up to epoch 16 (2024-03-03 06:08), so the staking days are 2024-03-01 to 2024-03-03.
 */
export const QRYSM_BEACON: FakeBeaconConfig = {
  flavour: 'qrysm',
  genesisTime: Date.parse('2024-03-01T20:00:00Z') / 1000,
  secondsPerSlot: 60,
  slotsPerEpoch: 128,
  validators: 12,
  headSlot: 128 * 18 + 5,
  finalizedEpoch: 16,
  activation: { 5: 4 },
  slashedAt: { 3: 14 },
  missed: (slot) => slot % 7 === 3,
};

/**
 * A qrysm beacon node whose validators go through every status: mainnet's clock (60 s slots, 128 a
 * epoch), genesis 2024-03-01 20:00 UTC, 14 validators; finalized up to epoch 24 (2024-03-03 21:04),
 * so the days are 2024-03-01 to 2024-03-03; the head at epoch 26. Validators 6 and 7 exit early and
 * are paid out (withdrawal_done), 8 is withdrawable at the head (withdrawal_possible), 9 has exited
 * (exited_unslashed), 3 is slashed at epoch 14 and has exited (exited_slashed), 2 is slashed after
 * the finalized epochs (active_slashed), 10 is exiting (active_exiting), 5 joins at epoch 4, 12 is
 * queued (pending_queued) and 13 not yet eligible (pending_initialized).
 */
export const VALIDATORS_BEACON: FakeBeaconConfig = {
  flavour: 'qrysm',
  genesisTime: Date.parse('2024-03-01T20:00:00Z') / 1000,
  secondsPerSlot: 60,
  slotsPerEpoch: 128,
  validators: 14,
  headSlot: 128 * 26 + 5,
  finalizedEpoch: 24,
  activation: { 5: 4, 12: 30, 13: 50 },
  eligibleAt: { 13: 40 },
  slashedAt: { 3: 14, 2: 25 },
  exitAt: { 2: 31, 3: 24, 6: 8, 7: 9, 8: 22, 9: 25, 10: 30 },
  withdrawableDelay: 4,
  missed: (slot) => slot % 7 === 3,
};

/** The pos blocks beside it, every 4 hours over the same days: genesis coins, transfers (burning fees), withdrawals, a migration mint. */
export function stakingPosChain(): ChainBuilder {
  const chain = new ChainBuilder('pos', STAKING_BEACON.genesisTime, 4 * 3600);
  const [alice, bob, staker, claimer] = ['alice', 'bob', 'staker', 'claimer'].map((name) => addr('pos', `staking-${name}`)) as [string, string, string, string];
  chain.block((b) => b.genesis([{ address: alice, amount: units('pos', 500) }, { address: bob, amount: units('pos', 120) }]));
  for (let i = 0; i < 20; i++) {
    chain.block((b) => {
      b.transfer(alice, bob, units('pos', 1) + BigInt(i), { gasUsed: 21_000 + 1_000 * i });
      if (i % 3 === 1) b.withdrawal(staker, 2_000_000_000n * BigInt(i + 1), i);
      if (i === 9) b.mint(claimer, units('pos', 40), 'staking-acct');
    });
  }
  return chain;
}

/** The staking days the fake beacon node of STAKING_BEACON gives. */
export function expectedBeaconDays(): ExpectedStakingDay[] {
  return beaconStakingDays(createBeaconModel(STAKING_BEACON));
}

/** A store holding the pos blocks of `stakingPosChain` and the staking figures synced from a fake beacon node of STAKING_BEACON. */
export async function seedStakingFromBeacon(store: Store): Promise<{ blocks: CanonicalBlock[]; days: ExpectedStakingDay[] }> {
  return seedStaking(store, STAKING_BEACON);
}

/** The same from a fake qrysm node of QRYSM_BEACON; with the model, for the validators' oracles. */
export async function seedStakingFromQrysm(store: Store): Promise<{ blocks: CanonicalBlock[]; days: ExpectedStakingDay[]; model: BeaconModel }> {
  return { ...(await seedStaking(store, QRYSM_BEACON)), model: createBeaconModel(QRYSM_BEACON) };
}

async function seedStaking(store: Store, config: FakeBeaconConfig): Promise<{ blocks: CanonicalBlock[]; days: ExpectedStakingDay[] }> {
  const chain = stakingPosChain();
  await ingest(store, chain.source(), { batchBlocks: 8 });
  const beacon = await startFakeBeacon(config);
  try {
    await syncStaking(store, createBeaconClient({ url: beacon.url, backoffMs: 1 }));
  } finally {
    await beacon.close();
  }
  return { blocks: chain.blocks, days: beaconStakingDays(createBeaconModel(config)) };
}
