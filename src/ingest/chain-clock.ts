/**
 * The network's clock from the chain's own blocks (docs/indexing-pos.md, "The network's clock"):
 * on a proof-of-stake chain a block's timestamp is genesis + slot × slot time (qrysm's
 * `ValidatePayload`, beacon-chain/core/blocks/payload.go, refuses any other), so the gaps between
 * consecutive blocks are whole multiples of the slot time (a missed slot makes a gap of two). The
 * pos indexer derives it from the latest stored blocks and records it with clock source 'blocks'
 * (store/chain-network.ts), unless the beacon's spec is stored: the beacon's always wins.
 */
import sql from 'sql-template-tag';
import type { Logger } from 'pino';
import type { ChainId } from '../chain/chains.ts';
import { readChainNetworks, writeBlocksClock } from '../store/chain-network.ts';
import type { Store } from '../store/store.ts';

/** The latest blocks whose timestamps are read: about 17 hours of a 60 s network, a bounded read of the (chain, height) key. */
export const CLOCK_BLOCKS = 1024;
/** Fewer positive gaps than this tell nothing yet (a young devnet): nothing is recorded. */
export const CLOCK_MIN_GAPS = 8;
/** How often a following indexer derives the clock again. */
export const CLOCK_INTERVAL_MS = 300_000;

/**
 * The slot time that timestamps in height order show, or null with fewer than CLOCK_MIN_GAPS
 * positive gaps. The rule: the largest divisor of the most frequent positive gap (the smaller on
 * a tie) that divides all the gaps but a tolerated few, max(2, 1 in 20). On a PoS chain every gap
 * is a multiple of the slot time, and unless more slots are missed than filled the most frequent
 * gap is one slot, so the answer is the slot time exactly, missed slots or not; one odd block (two
 * odd gaps, or a twentieth of the gaps) does not bring it down to their common divisor, as a plain
 * gcd would (to 1 s). When more slots are missed than filled, the mode is a multiple of the slot
 * time and the shorter gaps rule it out, so the divisors below it are tried down to the slot time.
 * Gaps of zero or less (not PoS blocks) are left out.
 */
export function slotSecondsOf(timestamps: readonly number[]): number | null {
  const gaps: number[] = [];
  for (let i = 1; i < timestamps.length; i++) {
    const gap = timestamps[i]! - timestamps[i - 1]!;
    if (gap > 0) gaps.push(gap);
  }
  if (gaps.length < CLOCK_MIN_GAPS) return null;
  const counts = new Map<number, number>();
  for (const gap of gaps) counts.set(gap, (counts.get(gap) ?? 0) + 1);
  let mode = 0;
  let most = 0;
  for (const [gap, count] of counts) if (count > most || (count === most && gap < mode)) [mode, most] = [gap, count];
  const tolerated = Math.max(2, Math.floor(gaps.length / 20));
  for (let d = mode; d > 1; d--) {
    if (mode % d !== 0) continue;
    let odd = 0;
    for (const gap of gaps) if (gap % d !== 0 && ++odd > tolerated) break;
    if (odd <= tolerated) return d;
  }
  return 1;
}

/** The slot time the latest CLOCK_BLOCKS stored blocks of `chain` show (`slotSecondsOf`), or null. */
export async function readBlocksClock(store: Store, chain: ChainId): Promise<number | null> {
  const rows = await store.query<{ ts: string | number }>(
    'ingest.chain_clock.blocks',
    sql`SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT ${CLOCK_BLOCKS}`,
    { reusePlan: true }, // a backward range of the (chain, height) key
  );
  return slotSecondsOf(rows.map((r) => Number(r.ts)).reverse());
}

/**
 * Derives `chain`'s slot time from its stored blocks and records it, unless the beacon's is
 * stored or the store already holds this one: the value recorded, or null when nothing was.
 */
export async function recordBlocksClock(store: Store, chain: ChainId, logger?: Logger): Promise<number | null> {
  const stored = (await readChainNetworks(store))[chain];
  if (stored.clockSource === 'beacon') return null;
  const slotSeconds = await readBlocksClock(store, chain);
  if (slotSeconds === null || (stored.clockSource === 'blocks' && stored.slotSeconds === slotSeconds)) return null;
  if (!(await writeBlocksClock(store, chain, slotSeconds))) return null;
  logger?.info({ chain, slotSeconds, was: stored.slotSeconds, wasFrom: stored.clockSource }, `${chain} slot time from the block timestamps: ${slotSeconds} s`);
  return slotSeconds;
}

export interface ChainClock {
  /** Stops deriving, after one last derivation from what is stored then. */
  done(): Promise<void>;
}

/**
 * Derives `chain`'s clock from its blocks while an indexer runs: at start (a resumed store's
 * blocks), every `intervalMs` while following, and once more when `done` (a one-off backfill's
 * blocks). A failure is logged and left to the next derivation: the clock never stops the index.
 */
export function followChainClock(store: Store, chain: ChainId, options: { follow: boolean; logger: Logger; signal?: AbortSignal; intervalMs?: number }): ChainClock {
  const { logger } = options;
  let running: Promise<unknown> = Promise.resolve();
  const derive = () => {
    running = running.then(() => recordBlocksClock(store, chain, logger)).catch((err: Error) => logger.warn({ chain, err: err.message }, `${chain} slot time not derived from the blocks`));
    return running;
  };
  void derive();
  const timer = options.follow ? setInterval(derive, options.intervalMs ?? CLOCK_INTERVAL_MS) : undefined;
  timer?.unref();
  options.signal?.addEventListener('abort', () => clearInterval(timer), { once: true });
  return {
    async done() {
      clearInterval(timer);
      await derive();
    },
  };
}
