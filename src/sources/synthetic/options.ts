/** The generator's options, their defaults, and the times they imply. */
import { DAY_SECONDS } from '../../time.ts';

export interface SyntheticOptions {
  /** Fixes everything: the same seed and options give the same blocks, byte for byte. */
  seed: number;
  /** Time of the last block of both chains (default: now, rounded down to the minute). */
  end?: Date;
  /** Length of the pow history in days (demo: 400). Fractions are allowed (tests). */
  powDays: number;
  /** Length of the pos history in days (demo: 60); pos launches after pow and runs beside it. */
  posDays: number;
  /**
   * The size knob: the mean number of non-coinbase transactions per day on each chain (scheduled
   * ones such as relay forwards, pool payouts and migrations included). On pos, congestion
   * episodes add a few hundred block-filler transactions a day on top (see docs/synthetic-data.md).
   */
  scale: number;
  /** Start of pow-to-pos migration (default: 2/3 into the pos history); null: no migration. */
  migrationCutover?: Date | null;
  /** Mean blocks between reorgs of depth 1 to MAX_REORG_DEPTH (default 2000; 0: none). */
  reorgEvery?: number;
  /** Mean blocks between malformed items: garbled answers (a block undecodable once) or set-aside items (default 0: none). */
  malformedEvery?: number;
  /**
   * Time of pow block 0, to the second (a mainnet-shaped history: `MAINNET_POW_GENESIS`). The chains
   * then end `powDays` after it, and `end` must be unset.
   */
  powGenesis?: Date;
  /**
   * Share of pow blocks, from 0 up to (not including) 1, that carry nothing but their coinbase
   * (default 0). The other blocks keep the generator's mix of transactions, each 1 / (1 - share)
   * times as busy, so that `scale` stays the daily mean. Scheduled transactions due in a
   * coinbase-only block (relay forwards, pool payouts, migration burns) wait for the next block
   * that carries transactions, and exchanges rebalance only in such blocks. The block that creates
   * the system token (height 3) always carries it.
   */
  powCoinbaseOnlyShare?: number;
  /**
   * Multi-signature addresses the pow chain makes (default 0): each is created by a
   * multi_sig_create, funded by its creator, and proposes spends that its signatories vote on
   * until they execute, expire or are still open at the end (docs/synthetic-data.md).
   */
  powMultiSig?: number;
  /**
   * Signatures, spread over the pow history, that use a one-time key index their signer used
   * before (default 0): the reuse an explorer warns about, which a QRL node would refuse.
   */
  powOtsReuses?: number;
  /**
   * The pos network's clock (default: the spec's 12 s slots, 32 an epoch; the demo runs qrysm
   * mainnet's 60 s and 128). Recorded in the store at load, as a node would give it.
   */
  posSlotSeconds?: number;
  posSlotsPerEpoch?: number;
  /**
   * A world that goes on after its history (the living demo): the history ends at `from`, and
   * the blocks after it up to `end` are the chains' future, released as their time comes. From
   * `from` on, reorgs come every `reorgEvery` blocks on average instead (a world's canonical
   * branch never depends on its reorgs).
   */
  live?: { from: Date; reorgEvery: number };
}

export interface ResolvedOptions {
  seed: number;
  scale: number;
  powDays: number;
  posDays: number;
  /** Unix seconds of the last block of both chains. */
  end: number;
  /** Unix seconds of pow block 0; pow block h is due at powStart + 60 h. */
  powStart: number;
  /** The last pow height. */
  powLastHeight: number;
  /** Unix seconds of pos slot 0 (its genesis block). */
  posStart: number;
  /** The last pos slot (always filled). */
  posLastSlot: number;
  /** Unix seconds; null when there is no migration. */
  migrationCutover: number | null;
  reorgEvery: number;
  malformedEvery: number;
  powCoinbaseOnlyShare: number;
  powMultiSig: number;
  powOtsReuses: number;
  posSlotSeconds: number;
  posSlotsPerEpoch: number;
  /** Unix seconds where the history ends and the live part begins; null: all history. */
  live: { from: number; reorgEvery: number } | null;
}

export const POW_BLOCK_SECONDS = 60;
/** The generated pos network's default clock: the spec's 12 s slots, 32 slots an epoch (SyntheticOptions.posSlotSeconds). */
export const POS_SLOT_SECONDS = 12;
/** A reorg forks this many blocks below the tip at most (its depth is drawn from 1 to this). */
export const MAX_REORG_DEPTH = 3;
export const POS_SLOTS_PER_EPOCH = 32;
/** The timestamp of mainnet's pow block 0 (1530004179). */
export const MAINNET_POW_GENESIS = new Date(1_530_004_179_000);

export function resolveOptions(options: SyntheticOptions): ResolvedOptions {
  const { seed, scale, powDays, posDays } = options;
  if (!Number.isInteger(seed)) throw new RangeError(`seed must be an integer, got ${seed}`);
  if (!(scale > 0)) throw new RangeError(`scale must be positive, got ${scale}`);
  if (!(powDays > 0) || !(posDays > 0)) throw new RangeError('powDays and posDays must be positive');
  if (posDays > powDays) throw new RangeError('pos launches after pow: posDays must not exceed powDays');
  const powLastHeight = Math.max(2, Math.round((powDays * DAY_SECONDS) / POW_BLOCK_SECONDS));
  if (options.powGenesis !== undefined && options.end !== undefined) throw new RangeError('powGenesis and end are exclusive: the chains end powDays after powGenesis');
  const end =
    options.powGenesis !== undefined
      ? Math.floor(options.powGenesis.getTime() / 1000) + powLastHeight * POW_BLOCK_SECONDS
      : Math.floor((options.end ?? new Date()).getTime() / 1000 / POW_BLOCK_SECONDS) * POW_BLOCK_SECONDS;
  const posSlotSeconds = options.posSlotSeconds ?? POS_SLOT_SECONDS;
  const posSlotsPerEpoch = options.posSlotsPerEpoch ?? POS_SLOTS_PER_EPOCH;
  if (!Number.isInteger(posSlotSeconds) || posSlotSeconds <= 0 || DAY_SECONDS % posSlotSeconds !== 0) throw new RangeError(`posSlotSeconds must divide a day, got ${posSlotSeconds}`);
  if (!Number.isInteger(posSlotsPerEpoch) || posSlotsPerEpoch <= 0) throw new RangeError(`posSlotsPerEpoch must be a positive integer, got ${posSlotsPerEpoch}`);
  const posLastSlot = Math.max(2, Math.round((posDays * DAY_SECONDS) / posSlotSeconds));
  const posStart = end - posLastSlot * posSlotSeconds;
  let migrationCutover: number | null;
  if (options.migrationCutover === null) migrationCutover = null;
  else if (options.migrationCutover === undefined) migrationCutover = posStart + Math.floor(((end - posStart) * 2) / 3);
  else migrationCutover = Math.max(posStart, Math.floor(options.migrationCutover.getTime() / 1000));
  const reorgEvery = options.reorgEvery ?? 2000;
  const malformedEvery = options.malformedEvery ?? 0;
  if (!(reorgEvery >= 0) || !(malformedEvery >= 0)) throw new RangeError('reorgEvery and malformedEvery must be >= 0');
  let live: ResolvedOptions['live'] = null;
  if (options.live) {
    const from = Math.floor(options.live.from.getTime() / 1000);
    if (!(from > end - powLastHeight * POW_BLOCK_SECONDS && from <= end)) throw new RangeError('live.from must fall inside the pow history');
    if (!(options.live.reorgEvery >= 0)) throw new RangeError('live.reorgEvery must be >= 0');
    live = { from, reorgEvery: options.live.reorgEvery };
  }
  const powCoinbaseOnlyShare = options.powCoinbaseOnlyShare ?? 0;
  if (!(powCoinbaseOnlyShare >= 0 && powCoinbaseOnlyShare < 1)) throw new RangeError(`powCoinbaseOnlyShare must be at least 0 and below 1, got ${powCoinbaseOnlyShare}`);
  const powMultiSig = options.powMultiSig ?? 0;
  const powOtsReuses = options.powOtsReuses ?? 0;
  for (const [name, value] of [['powMultiSig', powMultiSig], ['powOtsReuses', powOtsReuses]] as const) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number of at least 0, got ${value}`);
  }
  return {
    seed,
    scale,
    powDays,
    posDays,
    end,
    powStart: end - powLastHeight * POW_BLOCK_SECONDS,
    powLastHeight,
    posStart,
    posLastSlot,
    migrationCutover: migrationCutover !== null && migrationCutover < end ? migrationCutover : null,
    reorgEvery,
    malformedEvery,
    powCoinbaseOnlyShare,
    powMultiSig,
    powOtsReuses,
    posSlotSeconds,
    posSlotsPerEpoch,
    live,
  };
}
