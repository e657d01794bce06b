/**
 * Keeps the staking tables from a beacon node: `validators` (the head state of each),
 * `staking_daily` (per UTC day, over the finalized epochs that start in it; figures in
 * sources/beacon/staking.ts), and with each day `validator_days` (each validator's balances at the
 * day's end and its net rewards) and `slot_proposers` (the proposer of each of the day's blocks). A
 * run resumes at the last day written (recomputing it: it may have been partial), or at the first
 * day when no validator day is written yet (a store synced before validator_days existed), and never
 * goes past the finalized checkpoint, so a beacon reorg cannot touch what it wrote. Idempotent upserts. Each run records the network's clock as the node's spec gives it (pos's
 * slot time and slots per epoch, `clockSource: 'beacon'`), and how it ended (staking-status.ts): a
 * failure, with the route and node it names, until a run succeeds.
 */
import sql from 'sql-template-tag';
import type { Logger } from 'pino';
import type { Store } from '../store/store.ts';
import type { SlotProposerRow, ValidatorRow } from '../chain/model.ts';
import { BeaconError, type BeaconClient, type BeaconValidator } from '../sources/beacon/client.ts';
import { dayFigures, dayRewards, netRewards, PLANCK_PER_GWEI, validatorDays, type DayFigures } from '../sources/beacon/staking.ts';
import { DAY_SECONDS, dayStart, formatDay } from '../time.ts';
import { epochSeconds as networkEpochSeconds } from '../chain/network.ts';
import { readChainNetworks, writeChainNetwork } from '../store/chain-network.ts';
import { writeStaking, writeValidatorHistory } from './curated.ts';
import { recordStakingSyncError, recordStakingSyncSuccess } from './staking-status.ts';

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
  /** Seconds per epoch of the node's spec. */
  epochSeconds: number;
}

/** One staking sync; its outcome is recorded in the store (staking-status.ts) before it returns or throws. */
export async function syncStaking(db: Store, beacon: BeaconClient, options: StakingSyncOptions = {}): Promise<StakingSyncResult> {
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  let result: StakingSyncResult;
  try {
    result = await syncOnce(db, beacon, options, now);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const route = error instanceof BeaconError ? (error.route ?? null) : null;
    await recordStakingSyncError(db, { route, node: beacon.node, message, at: now() }).catch((recording: unknown) =>
      options.logger?.warn({ err: recording instanceof Error ? recording.message : String(recording) }, 'staking sync failure not recorded'),
    );
    throw error;
  }
  await recordStakingSyncSuccess(db, now());
  return result;
}

async function syncOnce(db: Store, beacon: BeaconClient, options: StakingSyncOptions, now: () => number): Promise<StakingSyncResult> {
  const api = await beacon.api();
  // Genesis first: on a node without the routes, the first request is the one the failure names.
  const { genesisTime } = await beacon.getGenesis();
  const [{ secondsPerSlot, slotsPerEpoch, minSlashingPenaltyQuotient }, { finalizedEpoch }] = await Promise.all([beacon.getSpec(), beacon.getStateFinalityCheckpoints('head')]);
  options.logger?.debug({ node: beacon.node, api: `/${api}/v1`, secondsPerSlot, slotsPerEpoch }, 'beacon node');
  await writeChainNetwork(db, 'pos', { slotSeconds: secondsPerSlot, slotsPerEpoch, clockSource: 'beacon' });
  const epochSeconds = secondsPerSlot * slotsPerEpoch;
  const epochStart = (epoch: number) => genesisTime + epoch * epochSeconds;

  const head = await beacon.getStateValidators('head');
  await upsertValidators(db, head, now());

  // Epochs before the finalized checkpoint are complete and final.
  const lastEpoch = finalizedEpoch - 1;
  const days: string[] = [];
  if (lastEpoch >= 0) {
    // The last day both tables hold; none (from the first day) while validator_days is empty.
    const [resume] = await db.query<{ day: string | Date | null }>(
      'staking.resume',
      sql`SELECT CASE WHEN EXISTS (SELECT 1 FROM validator_days WHERE chain = 'pos')
                      THEN least((SELECT max(day) FROM staking_daily WHERE chain = 'pos'), (SELECT max(day) FROM validator_days WHERE chain = 'pos'))::text
                 END AS day`,
    );
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
      const net = netRewards(previous, end, rewards.perValidator, minSlashingPenaltyQuotient);
      const figures = dayFigures(day, end, net);
      const proposers: SlotProposerRow[] = rewards.proposals.map((p) => ({
        chain: 'pos',
        slot: p.slot,
        ts: genesisTime + p.slot * secondsPerSlot,
        proposerIndex: p.proposerIndex,
        reward: p.total * PLANCK_PER_GWEI,
      }));
      await upsertDay(db, figures, validatorDays(day, end, net), proposers);
      options.logger?.info({ day, epochs: epochs.length, rewards: figures.rewards.toString() }, 'staking day written');
      days.push(day);
      previous = end;
      epoch = epochs.at(-1)! + 1;
    }
  }
  return { validators: head.length, days, finalizedEpoch, epochSeconds };
}

/** A day's figures, its validators' days and its slots' proposers, in one transaction. */
async function upsertDay(db: Store, figures: DayFigures, days: ReturnType<typeof validatorDays>, proposers: SlotProposerRow[]): Promise<void> {
  await db.transaction('staking.daily', async (tx) => {
    await writeStaking(tx, [{ chain: 'pos', ...figures }], []);
    await writeValidatorHistory(tx, days.map((d) => ({ chain: 'pos', ...d })), proposers);
  });
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

/**
 * How long a followed chain waits between staking syncs: one epoch of the node's spec (7,680 s on
 * qrysm's mainnet, 60 s × 128), since finality, and so what a sync can write, moves once an epoch.
 * At least a minute, so a devnet's epoch of seconds does not keep the beacon node busy replaying
 * rewards; at most three hours, so a spec with absurd values still leaves a retry within the day.
 */
export function followIntervalMs(epochSeconds: number): number {
  return Math.min(3 * 3600_000, Math.max(60_000, epochSeconds * 1000));
}

/**
 * Staking figures while an indexer runs: every epoch while following, and once at the end of a
 * backfill. A failure is logged, recorded (the network health shows it) and retried next round; it
 * never stops block indexing.
 */
export function followStaking(store: Store, beacon: BeaconClient, options: { follow: boolean; logger: Logger; signal?: AbortSignal }) {
  const { follow, logger, signal } = options;
  let stopping = false;
  let wake: (() => void) | undefined;
  // Until a sync reads the node's spec: the epoch the store knows (the default before any node was seen).
  let epochSeconds: number | null = null;
  const run = async () => {
    try {
      const result = await syncStaking(store, beacon, { logger });
      epochSeconds = result.epochSeconds;
      logger.info({ validators: result.validators, days: result.days, finalizedEpoch: result.finalizedEpoch }, 'staking figures updated');
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error), node: beacon.node }, 'staking figures not updated');
    }
  };
  const interval = async () => {
    epochSeconds ??= await readChainNetworks(store).then((networks) => networkEpochSeconds(networks.pos), () => null);
    return followIntervalMs(epochSeconds ?? 384);
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
      const waitMs = await interval();
      if (stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
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
