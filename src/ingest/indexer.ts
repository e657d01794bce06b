/**
 * What every node indexer shares at run time, whatever the node speaks: waiting out a node that is
 * down, stopping on a signal, and reporting the backfill until the source catches up with the head.
 */
import type { Logger } from 'pino';
import type { ChainId } from '../chain/chains.ts';
import type { BlockSource, SourceItem } from '../chain/model.ts';
import { ConfigError } from '../config/env.ts';
import { message } from '../sources/node-errors.ts';
import type { Store } from '../store/store.ts';
import { readCheckpoint } from './checkpoint.ts';
import { recordNodeTip } from './node-tip.ts';
import { beginBulkLoad, bulkLoadInProgress, storeIsEmpty } from './bulk.ts';
import { ingest, type IngestProgress, type IngestResult } from './pipeline.ts';

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
  /** A display for the backfill of `total` blocks; none by default (tests, the benchmark). */
  progress?: (label: string, total: number) => BackfillProgress;
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
}

/**
 * Whether a run backfills in bulk (bulk.ts): from genesis into a store without any block, or to
 * finish the bulk load a killed run began. From above genesis the pipeline seeds each address's
 * opening balance as it first appears, which only the block-by-block path does.
 */
async function backfillsInBulk(store: Store, run: NodeRun): Promise<boolean> {
  if (await bulkLoadInProgress(store)) return true;
  return run.from === 0 && (await storeIsEmpty(store));
}

/**
 * Runs the pipeline on a node's source: the node's tip recorded at start and when caught up (the
 * supply overview's `node_tip_height`), the backfill displayed, each batch logged once following.
 */
export async function indexFromNode(store: Store, source: BlockSource & { close(): void }, run: NodeRun, deps: IndexerDeps): Promise<IngestResult> {
  const { logger, signal } = deps;
  const chain = source.chain;
  await recordNodeTip(store, chain, run.head);
  const watched = watchBackfill(source, Math.max(0, run.head - run.from + 1), deps, (height) => {
    if (height >= 0) void recordNodeTip(store, chain, height).catch((err: Error) => logger.warn({ err: err.message }, 'node tip not recorded'));
    logger.info({ height, ...run.caughtUpFields?.() }, run.follow ? 'caught up with the node; following its head' : 'caught up with the node');
  });
  const options = {
    fromHeight: run.fromHeight,
    logger,
    signal,
    onProgress: (p: IngestProgress) => {
      if (watched.following()) logger.info({ height: p.height, blocks: p.blocks, transactions: p.transactions, reorgs: p.reorgs, deadLetters: p.deadLetters }, `${chain} blocks written`);
    },
  };
  try {
    if (!(await backfillsInBulk(store, run))) return await ingest(store, watched.source, options);
    // A first sync from genesis into an empty store (or one a killed first sync left): the bulk
    // path up to the head, then the indexes back and the days closed, then block by block.
    logger.info('first sync: backfilling in bulk (secondary indexes are rebuilt once caught up)');
    const load = await beginBulkLoad(store, logger);
    const backfill = await ingest(store, watched.source, { ...options, bulk: true, untilCaughtUp: true });
    if (signal?.aborted) return backfill;
    await load.finish();
    if (!run.follow) return backfill;
    const followed = await ingest(store, watched.source, { ...options, fromHeight: undefined });
    return {
      ...followed,
      blocks: backfill.blocks + followed.blocks,
      transactions: backfill.transactions + followed.transactions,
      reorgs: backfill.reorgs + followed.reorgs,
      deadLetters: backfill.deadLetters + followed.deadLetters,
    };
  } finally {
    watched.stop();
    source.close();
  }
}
