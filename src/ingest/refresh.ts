/**
 * `quarry refresh`: rebuilds rollups from the stored raw rows. Without a range it rebuilds every
 * rollup of the chain. With a range it rebuilds what the range touched: every rollup row of each
 * address the range's blocks touch (over the address's whole history), the chain figures of the
 * range's days, and the chain-wide counters and day metrics that depend on them. After a fix to
 * a rollup definition, refreshing the affected range makes the rollups agree with it.
 */
import sql, { raw } from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db, Store } from '../store/store.ts';
import { formatDay, lastClosedDay } from '../time.ts';
import { applyRollups, closeDays, rebuildFeeWindows, rebuildRanks, recomputeChainStats, recomputeHolderTransitions, RollupDeltas } from '../rollups/index.ts';
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

const ROLLUP_TABLES = ['address_summary', 'address_daily', 'address_heatmap', 'address_counterparties', 'token_balances', 'chain_daily', 'chain_day_metrics', 'chain_stats'];

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
      for (const table of ROLLUP_TABLES) await tx.query('refresh.clear', sql`DELETE FROM ${raw(table)} WHERE chain = ${chain}`);
    } else {
      const touched = new RollupDeltas(chain, null);
      for (const block of await loadBlocks(tx, chain, from, to)) touched.addBlock(block);
      only = { addresses: new Set(touched.summary.keys()), days: new Set(touched.chainDaily.keys()) };
      await clearTouched(tx, chain, [...only.addresses], [...only.days]);
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
    if (!whole) {
      await recomputeHolderTransitions(tx, chain);
      await recomputeChainStats(tx, chain);
      await tx.query('refresh.reopen', sql`DELETE FROM chain_day_metrics WHERE chain = ${chain}`);
    }
    // The rank buckets and fee windows derive from rows that were just rebuilt underneath them.
    await rebuildRanks(tx, chain);
    await rebuildFeeWindows(tx, chain);
    const [first] = await tx.query<{ ts: number }>('refresh.first', sql`SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1`);
    await closeDays(tx, chain, formatDay(first!.ts), lastClosedDay(tip.ts!));
    return { fromHeight: from, toHeight: to, addresses: only ? only.addresses.size : 'all' };
  });
}

async function clearTouched(db: Db, chain: ChainId, addresses: string[], days: string[]): Promise<void> {
  for (const table of ['address_summary', 'address_daily', 'address_heatmap', 'token_balances']) {
    await db.query('refresh.clear_addresses', sql`DELETE FROM ${raw(table)} WHERE chain = ${chain} AND address = ANY(${addresses}::text[])`);
  }
  await db.query(
    'refresh.clear_pairs',
    sql`DELETE FROM address_counterparties WHERE chain = ${chain} AND (address = ANY(${addresses}::text[]) OR counterparty = ANY(${addresses}::text[]))`,
  );
  // The chain figures of the range's days are rebuilt, but holder transitions are recomputed
  // for every day afterwards, so keep those rows and zero their sums.
  await db.query(
    'refresh.clear_days',
    sql`UPDATE chain_daily SET block_count = 0, tx_count = 0, user_tx_count = 0, fee_sum = 0, burned = 0, minted = 0, volume = 0,
          gas_used = 0, size_sum = 0, size_max = 0, interval_sum = 0, base_fee_sum = 0
        WHERE chain = ${chain} AND day = ANY(${days}::date[])`,
  );
}
