/**
 * Keeps the staking tables from a beacon node: `validators` (the head state of each) and
 * `staking_daily` (per UTC day, over the finalized epochs that start in it; figures in
 * sources/beacon/staking.ts). A run resumes at the last day written (recomputing it: it may have been
 * partial) and never goes past the finalized checkpoint, so a beacon reorg cannot touch what it
 * wrote. Idempotent upserts.
 */
import sql from 'sql-template-tag';
import type { Logger } from 'pino';
import type { Store } from '../store/store.ts';
import type { ValidatorRow } from '../chain/model.ts';
import type { BeaconClient, BeaconValidator } from '../sources/beacon/client.ts';
import { dayFigures, dayRewards, PLANCK_PER_GWEI, type DayFigures } from '../sources/beacon/staking.ts';
import { DAY_SECONDS, dayStart, formatDay } from '../time.ts';
import { writeStaking } from './curated.ts';

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

export async function syncStaking(db: Store, beacon: BeaconClient, options: StakingSyncOptions = {}): Promise<StakingSyncResult> {
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const [{ genesisTime }, { secondsPerSlot, slotsPerEpoch, minSlashingPenaltyQuotient }, { finalizedEpoch }] = await Promise.all([
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
      const figures = dayFigures(day, previous, end, rewards, minSlashingPenaltyQuotient);
      await upsertDay(db, figures);
      options.logger?.info({ day, epochs: epochs.length, rewards: figures.rewards.toString() }, 'staking day written');
      days.push(day);
      previous = end;
      epoch = epochs.at(-1)! + 1;
    }
  }
  return { validators: head.length, days, finalizedEpoch };
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

/** One beacon epoch of an Ethereum-style chain (32 slots of 12 s): how often a followed chain's staking is synced. */
const FOLLOW_INTERVAL_MS = 384_000;

/**
 * Staking figures while an indexer runs: every epoch-ish while following, and once at the end of a
 * backfill. A failure is logged and retried next round; it never stops block indexing.
 */
export function followStaking(store: Store, beacon: BeaconClient, options: { follow: boolean; logger: Logger; signal?: AbortSignal }) {
  const { follow, logger, signal } = options;
  let stopping = false;
  let wake: (() => void) | undefined;
  const run = async () => {
    try {
      const result = await syncStaking(store, beacon, { logger });
      logger.info({ validators: result.validators, days: result.days, finalizedEpoch: result.finalizedEpoch }, 'staking figures updated');
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'staking figures not updated');
    }
  };
  const stop = () => {
    stopping = true;
    wake?.();
  };
  signal?.addEventListener('abort', stop, { once: true });
  const loop = (async () => {
    if (!follow) return;
    while (!stopping) {
      await run();
      if (stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FOLLOW_INTERVAL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    /** Stops following; after a backfill that was not interrupted, syncs once more. */
    async done() {
      stop();
      await loop;
      if (!follow && !signal?.aborted) await run();
    },
  };
}
