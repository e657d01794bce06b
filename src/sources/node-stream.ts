/**
 * What the two node sources (evm-rpc for pos, qrl-grpc for pow) share: waiting out a node that is
 * down, and the stream of blocks — a backfill through a window of prefetched heights, then, when
 * following, the head polled — with every reorg it notices shown to the pipeline (see BlockSource):
 * - a fetched block whose parent is not the block yielded before it: the prefetched window is
 *   dropped and the block now at that height is yielded (the pipeline then walks back);
 * - while following, a head at the last yielded height with another hash, or below it: the block
 *   now at the head is yielded at once (a reorg to a branch of equal height is seen when it
 *   happens, not a block later);
 * - at start, when the node is not ahead of the stored tip, the block now at the tip's height (so a
 *   tip that was reorganised away is rolled back first).
 */
import type { Logger } from 'pino';
import type { SourceItem } from '../chain/model.ts';

export interface NodePacer {
  /** Waits `ms`, or until `close`. */
  sleep(ms: number): Promise<void>;
  /** Runs `fn` until it succeeds or fails for good, waiting out transient failures (a node that is down). */
  patiently<T>(what: string, fn: () => Promise<T>, maxAttempts?: number): Promise<T>;
  isClosed(): boolean;
  /** Ends the waits: the stream stops at its next step. */
  close(): void;
}

export interface NodePacerOptions {
  isRetryable(error: unknown): boolean;
  describe(error: unknown): string;
  /** A failure not worth a warning on this attempt (one expected to pass by itself). */
  quiet?(error: unknown, attempt: number): boolean;
  log?: Logger;
}

export function createNodePacer(options: NodePacerOptions): NodePacer {
  let closed = false;
  let wake: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  return {
    sleep,
    async patiently<T>(what: string, fn: () => Promise<T>, maxAttempts = Infinity): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await fn();
        } catch (error) {
          if (closed || !options.isRetryable(error) || attempt >= maxAttempts) throw error;
          const delay = Math.min(30_000, 500 * 2 ** Math.min(attempt - 1, 6));
          if (!options.quiet?.(error, attempt)) options.log?.warn({ err: options.describe(error), attempt, delayMs: delay }, `${what}: retrying`);
          await sleep(delay);
        }
      }
    },
    isClosed: () => closed,
    close() {
      closed = true;
      wake?.();
    },
  };
}

export interface NodeStreamOptions<F> {
  pacer: NodePacer;
  /** The node's head: height and hash of its last block. */
  head(): Promise<{ height: number; hash: string }>;
  /** What the node has at `height`, transient failures waited out; null when its chain is shorter now. */
  fetch(height: number): Promise<F | null>;
  /** The item a fetch holds (its parent hash is checked before it is finished). */
  peek(fetched: F): SourceItem;
  /** The item to yield; called in the order items are yielded (a source keeps order-dependent state here). */
  finish(fetched: F): SourceItem;
  /** Keep following the head after reaching it. */
  follow: boolean;
  /** Stop after this height. */
  toHeight?: number;
  pollIntervalMs: number;
  /** Heights fetched ahead of the one being yielded. */
  prefetch: number;
  log?: Logger;
  /** Told every head read (at start, and at every poll while following). */
  onHead?: (head: { height: number; hash: string }) => void;
}

export async function* nodeBlocks<F>(fromHeight: number, o: NodeStreamOptions<F>): AsyncGenerator<SourceItem> {
  const { pacer, log } = o;
  let next = fromHeight;
  // In an object: `emit` changes it, and a local variable's narrowing would not see that.
  const state: { last: { height: number; hash: string } | null } = { last: null };
  let target = o.toHeight ?? Infinity;
  let started = false;
  let caughtUpSent = false;

  const emit = (fetched: F): SourceItem => {
    const item = o.finish(fetched);
    state.last = item.kind === 'block' ? { height: item.block.height, hash: item.block.hash } : null;
    if (item.kind !== 'caught-up') next = (item.kind === 'block' ? item.block.height : item.height) + 1;
    caughtUpSent = false;
    return item;
  };

  async function* range(from: number, to: number): AsyncGenerator<SourceItem> {
    const window = new Map<number, Promise<F | null>>();
    let fetchNext = from;
    const fill = (height: number) => {
      while (fetchNext <= to && fetchNext < height + o.prefetch && !pacer.isClosed()) {
        const pending = o.fetch(fetchNext);
        // Abandoned entries (after a reorg) must not become unhandled rejections.
        pending.catch(() => undefined);
        window.set(fetchNext++, pending);
      }
    };
    try {
      for (let height = from; height <= to && !pacer.isClosed(); height++) {
        fill(height);
        const fetched = await window.get(height)!;
        window.delete(height);
        if (fetched === null) return; // the chain got shorter: ask for the head again
        const item = o.peek(fetched);
        if (item.kind === 'block' && state.last !== null && state.last.height === height - 1 && item.block.parentHash !== state.last.hash) {
          // The chain changed between our reads: yield what is canonical now at this height and
          // let the pipeline walk back; everything prefetched on the old picture is dropped.
          log?.info({ height }, 'the node reorganised during the backfill');
          const fresh = await o.fetch(height);
          if (fresh) yield emit(fresh);
          return;
        }
        yield emit(fetched);
      }
    } finally {
      window.clear();
    }
  }

  while (!pacer.isClosed()) {
    const head = await pacer.patiently('head', () => o.head());
    o.onHead?.(head);
    if (!started) {
      if (!o.follow) target = Math.min(target, head.height);
      if (fromHeight > 0 && head.height < fromHeight) {
        const fetched = await o.fetch(Math.min(head.height, fromHeight - 1));
        if (fetched) {
          yield emit(fetched);
          next = fromHeight;
        }
      }
      started = true;
    } else if (state.last !== null && (head.height < state.last.height || (head.height === state.last.height && head.hash !== state.last.hash))) {
      log?.info({ height: head.height, hash: head.hash, indexedHash: state.last.hash }, 'the node reorganised below the indexed tip');
      const fetched = await o.fetch(head.height);
      if (fetched) yield emit(fetched);
      continue;
    }

    const end = Math.min(head.height, target);
    if (next <= end) {
      yield* range(next, end);
      continue;
    }
    if (!caughtUpSent) {
      caughtUpSent = true;
      yield { kind: 'caught-up' };
    }
    if (next > target) return;
    await pacer.sleep(o.pollIntervalMs);
  }
}
