/**
 * `quarry refresh`: rebuilds rollups from the stored raw rows. Without a range it rebuilds every
 * rollup of the chain. With a range it rebuilds what the range touched: every rollup row of each
 * address the range's blocks touch (over the address's whole history), the chain figures of the
 * range's days, and the chain-wide counters and day metrics that depend on them. After a fix to
 * a rollup definition, refreshing the affected range makes the rollups agree with it.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Store } from '../store/store.ts';
import { formatDay, lastClosedDay } from '../time.ts';
import { afterRefresh, applyRollups, clearRollups, clearTouched, closeDays, RollupDeltas } from '../rollups/index.ts';
import { loadBlocks } from './load-blocks.ts';

export interface RefreshOptions {
  fromHeight?: number;
  toHeight?: number;
  /** Blocks read per step. */
  step?: number;
  onStep?: (done: number, total: number) => void;
}

export interface RefreshResult {
  fromHeight: number;
  toHeight: number;
  addresses: number | 'all';
}

export async function refreshRollups(store: Store, chain: ChainId, options: RefreshOptions = {}): Promise<RefreshResult | null> {
  const [tip] = await store.query<{ height: number | null; ts: number | null }>(
    'refresh.tip',
    sql`SELECT height, ts FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1`,
  );
  if (tip?.height == null) return null;
  const from = Math.max(0, options.fromHeight ?? 0);
  const to = Math.min(tip.height, options.toHeight ?? tip.height);
  const step = options.step ?? 5000;
  const whole = from === 0 && to === tip.height;

  return store.transaction('refresh', async (tx) => {
    let only: { addresses: Set<string>; days: Set<string> } | undefined;
    if (whole) {
      await clearRollups(tx, chain);
    } else {
      const touched = new RollupDeltas(chain, null);
      for (const block of await loadBlocks(tx, chain, from, to)) touched.addBlock(block);
      only = { addresses: new Set(touched.seenAt.keys()), days: new Set(touched.days) };
      await clearTouched(tx, chain, { addresses: [...only.addresses], days: [...only.days] });
    }
    // Replay the whole chain from the raw rows; a partial refresh keeps only the touched figures.
    let previousTs: number | null = null;
    for (let start = 0; start <= tip.height!; start += step) {
      const blocks = await loadBlocks(tx, chain, start, Math.min(tip.height!, start + step - 1));
      const deltas = new RollupDeltas(chain, previousTs, only);
      for (const block of blocks) deltas.addBlock(block);
      await applyRollups(tx, deltas, { partial: !whole });
      previousTs = blocks.at(-1)?.timestamp ?? previousTs;
      options.onStep?.(Math.min(tip.height! + 1, start + step), tip.height! + 1);
    }
    // What the replay does not keep: counters over the whole chain, ranks, windows ending at the tip.
    await afterRefresh(tx, chain, !whole);
    const [first] = await tx.query<{ ts: number }>('refresh.first', sql`SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1`);
    await closeDays(tx, chain, formatDay(first!.ts), lastClosedDay(tip.ts!));
    return { fromHeight: from, toHeight: to, addresses: only ? only.addresses.size : 'all' };
  });
}
