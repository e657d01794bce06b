/**
 * What a run is given: the options of `ingest()` (the public types, re-exported by pipeline.ts)
 * and the run's context, the same for every step of the run and never changed by one.
 */
import type { Logger } from 'pino';
import type { ChainId } from '../../chain/chains.ts';
import type { BlockSource } from '../../chain/model.ts';
import type { Store } from '../../store/store.ts';
import { EVENTS_KEPT } from '../events.ts';

export interface IngestProgress {
  chain: ChainId;
  /** Height of the last block written. */
  height: number;
  blocks: number;
  transactions: number;
  reorgs: number;
  deadLetters: number;
}

export type IngestResult = IngestProgress;

export interface RefetchPolicy {
  /** Fetches of a bad block after the first, before the chain stalls. */
  attempts: number;
  /** Wait before the second re-fetch (the first goes at once); doubled each time, up to `maxDelayMs`. */
  delayMs: number;
  maxDelayMs: number;
}

export interface IngestOptions {
  /** First height to read; default: after the checkpoint (or 0). */
  fromHeight?: number;
  /** Stop after writing this height. */
  toHeight?: number;
  /** Most blocks in one write transaction (default 1000; 20000 in a bulk load). */
  batchBlocks?: number;
  /** Most transactions in one write transaction (default 20000; 200000 in a bulk load). */
  batchTransactions?: number;
  /** The store is being bulk loaded (see bulk.ts). */
  bulk?: boolean;
  /** Return once the source has caught up with its head (everything read is written first). */
  untilCaughtUp?: boolean;
  /**
   * In a bulk load, apply gathered rollup deltas once they hold this many keys (default 3,000,000,
   * about half a gigabyte of heap): a demo-sized chain is applied in one step, which
   * saves the embedded store a step's large fixed cost.
   */
  bulkDeltaKeys?: number;
  /** Deepest rollback the run performs (blocks below the tip); deeper forks stall the chain. Default: none. */
  maxReorgDepth?: number;
  /** Blocks reverted per transaction in a rollback (default REWIND_CHUNK_BLOCKS). */
  rollbackChunkBlocks?: number;
  /** How a block that does not decode is fetched again (default: 5 more times over about 7 s). */
  refetch?: RefetchPolicy;
  logger?: Logger;
  onProgress?: (progress: IngestProgress) => void;
  signal?: AbortSignal;
  /** Clock for reorg, stall and dead-letter records (Unix seconds). */
  now?: () => number;
  /** Events kept per chain in the event log (default EVENTS_KEPT; see events.ts). */
  eventsKept?: number;
}

export const DEFAULT_REFETCH: RefetchPolicy = { attempts: 5, delayMs: 500, maxDelayMs: 8000 };

/** Blocks a bulk load keeps in memory: reorgs up to this depth never reach the store. */
export const BULK_HOLDBACK = 64;

/** A source that broke its contract (a block of another chain, say): a bug, not bad data. */
export class IngestError extends Error {
  override name = 'IngestError';
}

/** Everything fixed for one run: the store, the source, and the options with their defaults. */
export interface RunContext {
  readonly store: Store;
  readonly source: BlockSource;
  readonly chain: ChainId;
  readonly bulk: boolean;
  /** A batch is full at this many blocks above the held-back ones, or this many transactions. */
  readonly maxBlocks: number;
  readonly maxTxs: number;
  /** Blocks each write leaves queued unless it is the final one: BULK_HOLDBACK in a bulk load, else 0. */
  readonly holdback: number;
  /** A bulk load applies its gathered deltas once they hold this many keys. */
  readonly maxDeltaKeys: number;
  /** Deepest rollback (blocks below the tip); Infinity when unbounded. */
  readonly maxReorgDepth: number;
  readonly rollbackChunkBlocks: number | undefined;
  readonly refetch: RefetchPolicy;
  readonly eventsKept: number;
  readonly now: () => number;
  readonly log: Logger | undefined;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((progress: IngestProgress) => void) | undefined;
}

export function runContext(store: Store, source: BlockSource, options: IngestOptions): RunContext {
  const bulk = options.bulk ?? false;
  return {
    store,
    source,
    chain: source.chain,
    bulk,
    maxBlocks: options.batchBlocks ?? (bulk ? 20_000 : 1000),
    maxTxs: options.batchTransactions ?? (bulk ? 200_000 : 20_000),
    holdback: bulk ? BULK_HOLDBACK : 0,
    maxDeltaKeys: options.bulkDeltaKeys ?? 3_000_000,
    maxReorgDepth: options.maxReorgDepth ?? Infinity,
    rollbackChunkBlocks: options.rollbackChunkBlocks,
    refetch: options.refetch ?? DEFAULT_REFETCH,
    eventsKept: options.eventsKept ?? EVENTS_KEPT,
    now: options.now ?? (() => Math.floor(Date.now() / 1000)),
    log: options.logger,
    signal: options.signal,
    onProgress: options.onProgress,
  };
}
