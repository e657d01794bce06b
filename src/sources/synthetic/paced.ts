/**
 * A live world's chain (SyntheticOptions.live) as a node that makes blocks as time passes:
 * `blocks(from)` yields the generated blocks whose time has come on the world's clock, says it has
 * caught up, and waits for the next one, as a followed node's head moves. The world's clock runs
 * from the end of its history at `pace` times the wall clock's speed (1: a pos block a slot, a pow
 * block a minute).
 */
import { pooledTx, type BlockSource, type CanonicalTx, type PoolReader, type SourceItem } from '../../chain/model.ts';

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
  /** The transactions of the blocks made but not yet released (LOOKAHEAD_SECONDS of them): the node's pool. */
  unreleased(): CanonicalTx[];
}

/**
 * World seconds of blocks made ahead of the clock while the chain waits: their transactions are
 * the pool (an hour: at the demo's rates a few transactions, more in a pos congestion episode).
 */
const LOOKAHEAD_SECONDS = 3600;

/**
 * `source` released on `clock`; `onHead` hears the height of every block as it is released (what
 * a node would report as its head).
 */
export function createPacedSource(source: BlockSource, clock: WorldClock, onHead?: (height: number) => void): PacedSource {
  let closed = false;
  /** Items made and not yet released, oldest first. */
  let ahead: SourceItem[] = [];
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
  const timeOf = (item: SourceItem | undefined) => (item?.kind === 'block' ? item.block.timestamp : null);

  return {
    chain: source.chain,
    name: source.name,
    hashAt: source.hashAt?.bind(source),
    blockAt: source.blockAt?.bind(source),
    async *blocks(fromHeight: number): AsyncGenerator<SourceItem> {
      const made = source.blocks(fromHeight)[Symbol.asyncIterator]();
      let ended = false;
      const make = async () => {
        const next = await made.next();
        if (next.done || next.value.kind === 'caught-up') ended = true;
        else ahead.push(next.value);
      };
      ahead = [];
      try {
        while (!closed) {
          if (ahead.length === 0) await make();
          const item = ahead[0];
          if (!item) break;
          const ts = timeOf(item);
          if (ts !== null && clock.msUntil(ts) > 0) {
            // Caught up with the clock: make the next hour's blocks (the pool), then wait for this one.
            while (!ended && (timeOf(ahead.at(-1)) ?? 0) <= clock.now() + LOOKAHEAD_SECONDS) await make();
            yield { kind: 'caught-up' };
            while (!closed && clock.msUntil(ts) > 0) await wait(clock.msUntil(ts));
            continue;
          }
          ahead.shift();
          if (item.kind === 'block') onHead?.(item.block.height);
          yield item;
        }
      } finally {
        ahead = [];
        await made.return?.();
      }
      if (closed) return;
      // The world's last block: the chain stands still from here on.
      yield { kind: 'caught-up' };
      while (!closed) await wait(MAX_WAIT_MS);
    },
    close() {
      closed = true;
      for (const wake of [...wakers]) wake();
    },
    unreleased: () => ahead.flatMap((item) => (item.kind === 'block' ? item.block.transactions.filter((tx) => tx.type !== 'coinbase') : [])),
  };
}

/**
 * The pool of a live world's chain, as a following indexer reads a node's (ingest/pending.ts): the
 * transactions of the blocks made and not yet released, each once. Those of an orphan that no
 * canonical block mines leave the pool unmined, as a node's dropped transactions do.
 */
export function createWorldPoolReader(source: PacedSource): PoolReader {
  return {
    chain: source.chain,
    method: 'generator',
    async read(limit) {
      const seen = new Set<string>();
      const txs = source.unreleased().filter((tx) => !seen.has(tx.hash) && seen.add(tx.hash)).slice(0, limit);
      return { txs: txs.map((tx) => pooledTx(source.chain, tx)), complete: true, poolSize: txs.length };
    },
  };
}
