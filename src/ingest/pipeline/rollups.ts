/**
 * The rollups step: a batch's rollup deltas, gathered before its write and applied in it. A
 * followed chain applies each batch's deltas with the batch; a bulk load adds them to those its
 * earlier batches still owe and applies them in large steps (at the final write, or once they hold
 * `maxDeltaKeys` keys). The checkpoint records how far the rollups reach; `catchUpRollups` brings
 * rollups that are behind the raw rows (a bulk load interrupted between steps) up to them.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { CanonicalBlock } from '../../chain/model.ts';
import type { Db, Store } from '../../store/store.ts';
import { eachDay, lastClosedDay } from '../../time.ts';
import { applyRollups, closeDays, firstOpenDay, RollupDeltas } from '../../rollups/index.ts';
import { writeCheckpoint, type StoredCheckpoint } from '../checkpoint.ts';
import { loadBlocks } from '../load-blocks.ts';
import type { RunContext } from './context.ts';
import type { Batch } from './queue.ts';
import type { Known } from './state.ts';

/** Blocks read back per step when rollups catch up with the raw rows. */
const CATCH_UP_BLOCKS = 5000;

export interface BatchRollups {
  /** The deltas the write carries: the batch's added to those owed (null: no blocks and none owed). */
  deltas: RollupDeltas | null;
  /** Whether the write applies them; if not, the written blocks owe them to a later write. */
  applyNow: boolean;
}

/**
 * The deltas of `batch`'s blocks, added to `owed`; on a followed chain with the opening balances of
 * addresses first seen (seedOpenings). `tipTs`: the time of the block below the batch, if known.
 */
export async function gatherRollups(ctx: RunContext, batch: Batch, owed: RollupDeltas | null, tipTs: number | null, known: Known, final: boolean): Promise<BatchRollups> {
  const { blocks } = batch;
  let deltas = owed;
  if (blocks.length > 0) {
    deltas ??= new RollupDeltas(ctx.chain, tipTs ?? (await storedTs(ctx.store, ctx.chain, blocks[0]!.height - 1)));
    for (const block of blocks) deltas.addBlock(block);
  }
  if (blocks.length > 0 && deltas && !ctx.bulk) await seedOpenings(ctx, blocks, deltas, known);
  const applyNow = deltas !== null && (!ctx.bulk || final || deltas.size >= ctx.maxDeltaKeys);
  return { deltas, applyNow };
}

async function storedTs(db: Db, chain: ChainId, height: number): Promise<number | null> {
  const [row] = await db.query<{ ts: number }>('ingest.previous_ts', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${height}`);
  return row?.ts ?? null;
}

/**
 * Indexing from above genesis: the addresses of `blocks` never seen before (no summary, no
 * opening) get their balance at the block below the chain's first stored one as an opening
 * balance, recorded in the block where each first appears and added to `deltas`.
 */
export async function seedOpenings(ctx: RunContext, blocks: CanonicalBlock[], deltas: RollupDeltas, known: Known): Promise<void> {
  const { store, chain, source } = ctx;
  if (!source.openingBalances) return;
  // The chain's first stored height, read once: nothing is ever written below it afterwards.
  if (known.openingsStart === null) {
    const [first] = await store.query<{ height: number }>('ingest.openings.first', sql`SELECT height FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1`);
    known.openingsStart = first ? Number(first.height) : blocks[0]!.height;
  }
  const start = known.openingsStart;
  if (start <= 0) return;
  const seen = [...deltas.seenAt.keys()];
  const rows = await store.query<{ address: string }>(
    'ingest.openings.known',
    sql`SELECT address FROM address_summary WHERE chain = ${chain} AND address = ANY(${seen}::text[])
          UNION ALL
          SELECT address FROM opening_balances WHERE chain = ${chain} AND address = ANY(${seen}::text[])`,
  );
  const knownSet = new Set(rows.map((row) => row.address));
  const fresh = seen.filter((address) => !knownSet.has(address));
  if (fresh.length === 0) return;
  const balances = await source.openingBalances(fresh, start - 1);
  const byHeight = new Map(blocks.map((block) => [block.height, block]));
  for (const address of fresh) {
    const block = byHeight.get(deltas.seenAt.get(address)!)!;
    const opening = { address, amount: balances.get(address) ?? null };
    (block.openings ??= []).push(opening);
    deltas.addOpening(opening, block.timestamp);
  }
}

/**
 * Inside the write's transaction: applies `deltas` and, on a followed chain, closes the days the
 * applied blocks completed; returns the days closed.
 */
export async function applyBatchRollups(tx: Db, ctx: RunContext, deltas: RollupDeltas, known: Known): Promise<string[]> {
  await applyRollups(tx, deltas, { filled: known.filledRollups });
  return ctx.bulk ? [] : closeCompletedDays(tx, ctx.chain, deltas);
}

/**
 * Closes the days that the applied blocks completed (all days before the last block's day) and any
 * a reorg reopened; returns the days closed, oldest first.
 */
async function closeCompletedDays(tx: Db, chain: ChainId, deltas: RollupDeltas): Promise<string[]> {
  const firstDay = await firstOpenDay(tx, chain);
  const lastClosed = lastClosedDay(deltas.lastTs);
  if (firstDay === null || firstDay > lastClosed) return [];
  await closeDays(tx, chain, firstDay, lastClosed);
  return eachDay(firstDay, lastClosed);
}

/** Applies the rollup deltas of written blocks the rollups do not hold yet, read back from the raw rows. */
export async function catchUpRollups(store: Store, chain: ChainId, source: string, checkpoint: StoredCheckpoint, stamp: number): Promise<StoredCheckpoint> {
  let rollupsHeight = checkpoint.rollupsHeight;
  while (rollupsHeight < checkpoint.height) {
    const to = Math.min(checkpoint.height, rollupsHeight + CATCH_UP_BLOCKS);
    const from = rollupsHeight + 1;
    await store.transaction('ingest.catch_up', async (tx) => {
      const blocks = await loadBlocks(tx, chain, from, to);
      const deltas = new RollupDeltas(chain, await storedTs(tx, chain, from - 1));
      for (const block of blocks) deltas.addBlock(block);
      await applyRollups(tx, deltas);
      await writeCheckpoint(tx, chain, source, { ...checkpoint, rollupsHeight: to }, stamp);
    });
    rollupsHeight = to;
  }
  return { ...checkpoint, rollupsHeight };
}
