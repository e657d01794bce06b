/**
 * What every node indexer shares at run time, whatever the node speaks: waiting out a node that is
 * down, stopping on a signal, reporting the backfill until the source catches up with the head, and
 * supervising the pipeline's runs: a run that ends because the store went away is followed, once
 * the store answers (and the writer lock is held again), by a new run from the checkpoint; a run
 * that ends on a stalled chain is, when following, tried again with backoff until the node serves
 * the block (without --follow the stall ends the command).
 */
import type { Logger } from 'pino';
import type { ChainId } from '../chain/chains.ts';
import type { BlockSource, PoolReader, SourceItem } from '../chain/model.ts';
import { ConfigError } from '../config/env.ts';
import { message } from '../sources/node-errors.ts';
import { waitForStore, StoreWaitAbortedError } from '../store/availability.ts';
import { StoreError } from '../store/errors.ts';
import type { Store } from '../store/store.ts';
import { readCheckpoint } from './checkpoint.ts';
import { recordFinalizedHeight, recordNodeTip } from './node-tip.ts';
import { sleep } from './sleep.ts';
import { backfillsInBulk, beginBulkLoad } from './bulk.ts';
import { DEFAULT_PENDING_INTERVAL_MS, followPending } from './pending.ts';
import { ChainStalledError, ingest, type IngestOptions, type IngestProgress, type IngestResult, type RefetchPolicy } from './pipeline.ts';

/**
 * The deepest reorg an indexer rolls back unless told otherwise (docs/ingest.md, "Reorgs"). pow: a
 * QRL node itself never switches to a branch that forks more than `reorg_limit` blocks below its
 * head (7 days of 60 s blocks); a deeper difference is another chain, not a reorg. pos: the node's
 * finalized block is the hard floor; this bound catches a node whose finality does not advance.
 */
export const DEFAULT_MAX_REORG_DEPTH: Record<ChainId, number> = { pow: 7 * 24 * 60, pos: 256 };

/** Stopped (SIGINT/SIGTERM) before the node answered at all: nothing to write, not a failure. */
export class StoppedError extends Error {
  override name = 'StoppedError';
}

/** A backfill's progress display (the CLI's bar); the indexer only feeds it. */
export interface BackfillProgress {
  update(done: number, payload?: Record<string, string | number>): void;
  stop(): void;
}

export interface IndexerDeps {
  logger: Logger;
  signal?: AbortSignal;
  /** The chain's writer lock (store/writer-lock.ts), taken again after a store outage. */
  writerLock?: { ensureHeld(): Promise<void> };
  /** Longest wait between two tries of a stalled chain while following (default 5 minutes). */
  stallRetryMaxMs?: number;
  /** How a block that does not decode is fetched again before the chain stalls (the pipeline's default unless set). */
  refetch?: RefetchPolicy;
  /** A display for the backfill of `total` blocks; none by default (tests, the benchmark). */
  progress?: (label: string, total: number) => BackfillProgress;
}

/** The settings of a node indexer that both chains take alike (the CLI's `commonIndexSettings` and `--concurrency`). */
export interface NodeIndexSettings {
  /** `--from`: the first height to index (else after the stored tip, or genesis). */
  fromHeight: number | undefined;
  /** Whether to keep following the head after catching up. */
  follow: boolean;
  /** Deepest reorg rolled back (DEFAULT_MAX_REORG_DEPTH unless told). */
  maxReorgDepth?: number;
  /** Calls in flight to the node. */
  concurrency: number;
  /** While following, how often to ask for a new head. */
  pollIntervalMs: number;
  /** While following, how often to read the node's pool of pending transactions (pending.ts); 0 = never (DEFAULT_PENDING_INTERVAL_MS unless told). */
  pendingIntervalMs?: number;
}

/** A node client's `onRetry`: each retried call logged at debug level. */
export function logNodeRetry(logger: Logger) {
  return ({ method, attempt, delayMs, error }: { method: string; attempt: number; delayMs: number; error: Error }) => logger.debug({ method, attempt, delayMs, err: error.message }, 'node call retried');
}

/** Waits out a node that is down or starting (failures `isRetryable` accepts), until it answers or we are stopped. */
export async function untilReachable<T>(what: string, fn: () => Promise<T>, isRetryable: (error: unknown) => boolean, deps: IndexerDeps): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (deps.signal?.aborted) throw new StoppedError(`stopped while ${what}`);
      if (!isRetryable(error)) throw error;
      const delayMs = Math.min(30_000, 1000 * attempt);
      deps.logger.warn({ err: message(error), delayMs }, `${what}: the node does not answer; waiting`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}

export interface WatchedSource {
  source: BlockSource;
  /** Whether the source has caught up with the node's head (from then on the indexer is following). */
  following(): boolean;
  stop(): void;
}

/**
 * The source as the pipeline reads it, feeding the backfill's display until the first `caught-up`
 * (then `onCaughtUp` runs once, and the display stops).
 */
export function watchBackfill(source: BlockSource, total: number, deps: IndexerDeps, onCaughtUp: (height: number) => void): WatchedSource {
  const display = total > 0 ? deps.progress?.(source.chain, total) : undefined;
  let done = 0;
  let height = -1;
  let following = false;
  const stop = () => display?.stop();
  return {
    following: () => following,
    stop,
    source: {
      chain: source.chain,
      name: source.name,
      hashAt: source.hashAt?.bind(source),
      blockAt: source.blockAt?.bind(source),
      finalizedHeight: source.finalizedHeight?.bind(source),
      openingBalances: source.openingBalances?.bind(source),
      async *blocks(fromHeight: number): AsyncIterable<SourceItem> {
        for await (const item of source.blocks(fromHeight)) {
          if (item.kind === 'block' && !following) {
            done++;
            height = item.block.height;
            display?.update(done, { extra: `height ${height}` });
          }
          if (item.kind === 'caught-up' && !following) {
            stop();
            following = true;
            onCaughtUp(height);
          }
          yield item;
        }
      },
    },
  };
}

/**
 * Where an indexer starts: `--from` if given, else just after the stored tip, else genesis. A
 * `--from` above the stored tip would leave a gap (and wrong balances): refused.
 */
export async function startHeight(store: Store, chain: ChainId, sourceName: string, fromHeight: number | undefined): Promise<{ from: number; resumed: boolean }> {
  const stored = await readCheckpoint(store, chain, sourceName);
  // BIGINT columns may arrive as strings.
  const tip = stored ? Number(stored.height) : null;
  if (fromHeight !== undefined && tip !== null && fromHeight > tip + 1) {
    throw new ConfigError([`--from ${fromHeight}: the store holds ${chain} up to ${tip}; a gap would leave balances wrong (omit --from to resume)`]);
  }
  return { from: fromHeight ?? (tip !== null ? tip + 1 : 0), resumed: tip !== null };
}

export interface NodeRun {
  /** The first height to index, and `--from` as given (the pipeline's own check against the store). */
  from: number;
  fromHeight: number | undefined;
  /** The node's head at start: sizes the backfill's display. */
  head: number;
  follow: boolean;
  /** What to log when the backfill catches up (the source's capabilities, say). */
  caughtUpFields?: () => Record<string, unknown>;
  /** Deepest reorg the indexer rolls back (docs/ingest.md, "Reorgs"). */
  maxReorgDepth?: number;
  /** Runs once the backfill catches up, when following (the pending pool's polling starts: pending.ts). */
  onFollowing?: () => void;
}

/**
 * Runs the pipeline on a node's source: the node's tip recorded at start and when caught up (the
 * supply overview's `node_tip_height`), the backfill displayed, each batch logged once following;
 * store outages and (when following) stalls outlived (see `supervise`).
 */
export async function indexFromNode(store: Store, source: BlockSource & { close(): void }, run: NodeRun, deps: IndexerDeps): Promise<IngestResult> {
  const { logger, signal } = deps;
  const chain = source.chain;
  // The node's finalized block, beside its tip: at start, when caught up, then at most once a minute while following.
  let finalizedSeenAt = 0;
  const recordFinalized = () => {
    finalizedSeenAt = Date.now();
    return recordNodeFinalized(store, source, logger);
  };
  const watched = watchBackfill(source, Math.max(0, run.head - run.from + 1), deps, (height) => {
    if (height >= 0) {
      void recordNodeTip(store, chain, height)
        .then(recordFinalized)
        .catch((err: Error) => logger.warn({ err: err.message }, 'node tip not recorded'));
    }
    logger.info({ height, ...run.caughtUpFields?.() }, run.follow ? 'caught up with the node; following its head' : 'caught up with the node');
    if (run.follow) run.onFollowing?.();
  });
  const options: IngestOptions = {
    fromHeight: run.fromHeight,
    maxReorgDepth: run.maxReorgDepth,
    refetch: deps.refetch,
    logger,
    signal,
    onProgress: (p: IngestProgress) => {
      if (watched.following() && Date.now() - finalizedSeenAt >= FINALIZED_EVERY_MS) void recordFinalized();
      if (watched.following()) logger.info({ height: p.height, blocks: p.blocks, transactions: p.transactions, reorgs: p.reorgs, deadLetters: p.deadLetters }, `${chain} blocks written`);
    },
  };

  /** One run of the pipeline: in bulk for a first sync (then block by block when following), else block by block. */
  async function runOnce(add: (result: IngestResult) => void): Promise<IngestResult> {
    await recordNodeTip(store, chain, run.head);
    await recordFinalized();
    if (!(await backfillsInBulk(store, chain, run.from))) return ingest(store, watched.source, options);
    // A first sync from genesis into an empty store (or one a killed first sync left): the bulk
    // path up to the head, then the indexes back and the days closed, then block by block.
    logger.info('first sync: backfilling in bulk (secondary indexes are rebuilt once caught up)');
    const load = await beginBulkLoad(store, logger, chain);
    const backfill = await ingest(store, watched.source, { ...options, bulk: true, untilCaughtUp: true });
    if (signal?.aborted) return backfill;
    await load.finish();
    if (!run.follow) return backfill;
    add(backfill);
    return ingest(store, watched.source, { ...options, fromHeight: undefined });
  }

  try {
    return await supervise(store, chain, run.follow, deps, async (add) => {
      try {
        return await runOnce(add);
      } finally {
        // A later run resumes from the checkpoint, not from --from.
        options.fromHeight = undefined;
      }
    });
  } finally {
    watched.stop();
    source.close();
  }
}

/**
 * A node indexer's run once it knows where to start and the node's head: the source closed on a
 * stop, the pipeline on it (`indexFromNode`) and, when following, the node's pool read from the
 * moment the backfill catches up until the run ends (pending.ts).
 */
export async function runNodeIndexer(
  store: Store,
  source: BlockSource & { close(): void },
  pool: PoolReader,
  start: Pick<NodeRun, 'from' | 'head' | 'caughtUpFields'>,
  settings: NodeIndexSettings,
  deps: IndexerDeps,
): Promise<IngestResult> {
  const { logger, signal } = deps;
  signal?.addEventListener('abort', () => source.close(), { once: true });
  const pending = settings.follow ? followPending(store, pool, { logger, signal, intervalMs: settings.pendingIntervalMs ?? DEFAULT_PENDING_INTERVAL_MS }) : undefined;
  try {
    return await indexFromNode(store, source, { ...start, fromHeight: settings.fromHeight, follow: settings.follow, maxReorgDepth: settings.maxReorgDepth, onFollowing: () => pending?.start() }, deps);
  } finally {
    await pending?.done();
  }
}

/** How often a following indexer asks the node for its finalized block. */
const FINALIZED_EVERY_MS = 60_000;

/**
 * Records the source's finalized height (chain_node_tips.finalized_height) when the source names
 * one. It only informs the block pages' `finalized`: a failure is logged, never the run's end.
 */
async function recordNodeFinalized(store: Store, source: BlockSource, logger: Logger): Promise<void> {
  if (!source.finalizedHeight) return;
  try {
    const finalized = await source.finalizedHeight();
    if (finalized !== null) await recordFinalizedHeight(store, source.chain, finalized);
  } catch (error) {
    logger.warn({ chain: source.chain, err: message(error) }, 'finalized height not recorded');
  }
}

/**
 * Runs `attempt` until it returns: after a store outage (a retryable StoreError) it waits for the
 * store, takes the writer lock again and runs again from the checkpoint; when following, a stalled
 * chain is tried again after a wait that doubles up to `stallRetryMaxMs`. The totals add up the
 * blocks every run wrote (a run reports what it wrote through `add` before the next starts).
 */
export async function supervise(
  store: Store,
  chain: ChainId,
  follow: boolean,
  deps: IndexerDeps,
  attempt: (add: (result: IngestResult) => void) => Promise<IngestResult>,
): Promise<IngestResult> {
  const { logger, signal } = deps;
  const total: IngestResult = { chain, height: -1, blocks: 0, transactions: 0, reorgs: 0, deadLetters: 0 };
  const add = (r: IngestResult) => {
    total.height = Math.max(total.height, r.height);
    total.blocks += r.blocks;
    total.transactions += r.transactions;
    total.reorgs += r.reorgs;
    total.deadLetters += r.deadLetters;
  };
  let stallWaitMs = 1000;
  const stallWaitMaxMs = deps.stallRetryMaxMs ?? 300_000;
  for (;;) {
    try {
      const result = await attempt(add);
      add(result);
      return { ...total, height: result.height };
    } catch (error) {
      if (signal?.aborted) throw new StoppedError(`stopped: ${message(error)}`);
      if (error instanceof StoreError && error.retryable) {
        logger.warn({ chain, err: error.message }, `${chain} indexer: the store does not answer; waiting for it`);
        try {
          await waitForStore(store, { logger, signal, what: `${chain} indexer` });
          await deps.writerLock?.ensureHeld();
        } catch (waitError) {
          if (waitError instanceof StoreWaitAbortedError) throw new StoppedError('stopped while waiting for the store');
          if (waitError instanceof StoreError && waitError.retryable) continue;
          throw waitError;
        }
        continue;
      }
      if (error instanceof ChainStalledError && follow) {
        logger.warn({ chain, height: error.stall.height, retryInMs: stallWaitMs }, `${chain} is stalled; trying the block again later`);
        await sleep(stallWaitMs, signal);
        if (signal?.aborted) throw new StoppedError(`stopped while ${chain} is stalled at ${error.stall.height}`);
        stallWaitMs = Math.min(stallWaitMaxMs, stallWaitMs * 2);
        continue;
      }
      throw error;
    }
  }
}
