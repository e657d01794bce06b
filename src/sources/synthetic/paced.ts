/**
 * A live world's chain (SyntheticOptions.live) as a node that makes blocks as time passes:
 * `blocks(from)` yields the generated blocks whose time has come on the world's clock, says it has
 * caught up, and waits for the next one, as a followed node's head moves. The world's clock runs
 * from the end of its history at `pace` times the wall clock's speed (1: a pos block a slot, a pow
 * block a minute).
 */
import type { BlockSource, SourceItem } from '../../chain/model.ts';

export interface WorldClock {
  /** The world's time now, Unix seconds. */
  now(): number;
  /** Wall milliseconds until the world's time reaches `ts` (0 when it has). */
  msUntil(ts: number): number;
}

/** A clock that starts at `from` (Unix seconds, the end of the history) and runs `pace` times as fast as the wall clock from there. */
export function worldClock(from: number, pace: number, wallNow: () => number = Date.now): WorldClock {
  if (!(pace > 0)) throw new RangeError(`pace must be positive, got ${pace}`);
  const now = () => from + (wallNow() / 1000 - from) * pace;
  return {
    now,
    msUntil: (ts) => Math.max(0, ((ts - from) / pace + from) * 1000 - wallNow()),
  };
}

/** The longest single wait: a closed source notices within it. */
const MAX_WAIT_MS = 1000;

export interface PacedSource extends BlockSource {
  /** Ends `blocks()` (at its next wait) and wakes it. */
  close(): void;
}

/**
 * `source` released on `clock`; `onHead` hears the height of every block as it is released (what
 * a node would report as its head).
 */
export function createPacedSource(source: BlockSource, clock: WorldClock, onHead?: (height: number) => void): PacedSource {
  let closed = false;
  const wakers = new Set<() => void>();
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.min(ms, MAX_WAIT_MS));
      wakers.add(wake);
    });

  return {
    chain: source.chain,
    name: source.name,
    hashAt: source.hashAt?.bind(source),
    blockAt: source.blockAt?.bind(source),
    async *blocks(fromHeight: number): AsyncGenerator<SourceItem> {
      for await (const item of source.blocks(fromHeight)) {
        if (closed) return;
        if (item.kind === 'caught-up') break;
        const ts = item.kind === 'block' ? item.block.timestamp : null;
        if (ts !== null && clock.msUntil(ts) > 0) {
          yield { kind: 'caught-up' };
          while (!closed && clock.msUntil(ts) > 0) await wait(clock.msUntil(ts));
          if (closed) return;
        }
        if (item.kind === 'block') onHead?.(item.block.height);
        yield item;
      }
      // The world's last block: the chain stands still from here on.
      yield { kind: 'caught-up' };
      while (!closed) await wait(MAX_WAIT_MS);
    },
    close() {
      closed = true;
      for (const wake of [...wakers]) wake();
    },
  };
}
