/**
 * What every node indexer shares at run time, whatever the node speaks: waiting out a node that is
 * down, stopping on a signal, and reporting the backfill until the source catches up with the head.
 */
import type { Logger } from 'pino';
import type { BlockSource, SourceItem } from '../chain/model.ts';

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
      deps.logger.warn({ err: error instanceof Error ? error.message : String(error), delayMs }, `${what}: the node does not answer; waiting`);
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
