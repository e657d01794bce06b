/**
 * Rolling a chain's store back to a height: the raw rows above it deleted, the rollups reduced by
 * exactly what those blocks added (read back from the raw rows, so the same code computes the
 * deltas that applied them), the checkpoint moved down. A reorg does this to its common ancestor;
 * `quarry dead-letters retry` does it below a set-aside item so that the next run fetches the
 * blocks again. Deep rewinds run in chunks, one transaction each: every chunk leaves the store a
 * whole prefix of the chain, so a run killed between chunks resumes from a consistent checkpoint.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db, Store } from '../store/store.ts';
import { clearRollups, revertRollups, RollupDeltas } from '../rollups/index.ts';
import { storedHashes, writeCheckpoint, type StoredCheckpoint } from './checkpoint.ts';
import { loadBlocks } from './load-blocks.ts';
import { deleteRawAbove, recordOrphans } from './raw-store.ts';
import { appendEvents, reorgEvent } from './events.ts';
import type { Logger } from 'pino';

export interface Reorg {
  /** The first replaced height (the common ancestor + 1). */
  height: number;
  prevHash: string;
  newHash: string;
  depth: number;
  /** The tip the rollback replaced. */
  oldTip: { height: number; hash: string };
  /** The head of the new branch when the fork was found. */
  newTip: { height: number; hash: string };
}

/** Blocks reverted per transaction: a deep rewind is many short transactions, not one long one. */
export const REWIND_CHUNK_BLOCKS = 2000;

/**
 * Reverts the written blocks bottom+1..top of `chain` in one transaction and moves `source`'s
 * checkpoint to `bottom`; records `reorg` with it when given. When the blocks are removed by a
 * reorg (`orphanedBy`, every chunk of it), their transactions are remembered as orphaned by it.
 * Returns the new checkpoint.
 */
export async function revertAbove(
  store: Store,
  chain: ChainId,
  source: string,
  bottom: number,
  top: number,
  reorg: Reorg | null,
  stamp: number,
  orphanedBy: Reorg | null = reorg,
): Promise<StoredCheckpoint> {
  // The first block stored above `bottom` (bottom + 1, unless a gap left by a skipped block is healed).
  const [firstReverted] = await store.query<{ ts: number }>('ingest.reorg.first_ts', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height > ${bottom} ORDER BY height LIMIT 1`);
  const [bottomBlock] = await store.query<{ ts: number }>('ingest.previous_ts', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${bottom}`);
  const bottomHash = (await storedHashes(store, chain, bottom, bottom)).get(bottom) ?? '';
  const checkpoint = { height: bottom, hash: bottomHash, rollupsHeight: bottom };
  await store.transaction('ingest.reorg', async (tx) => {
    const reverted = await loadBlocks(tx, chain, bottom + 1, top);
    // The first reverted block's interval (from the block below) was added with it: subtract it too.
    const deltas = new RollupDeltas(chain, bottomBlock?.ts ?? null);
    for (const block of reverted) deltas.addBlock(block);
    if (orphanedBy) await recordOrphans(tx, chain, bottom, orphanedBy.height, stamp);
    await revertRollups(tx, deltas, bottom, firstReverted?.ts ?? 0, () => deleteRawAbove(tx, chain, bottom));
    if (reorg) {
      await recordReorg(tx, chain, reorg, stamp);
      await appendEvents(tx, chain, [reorgEvent(reorg)]);
    }
    await writeCheckpoint(tx, chain, source, checkpoint, stamp);
  });
  return checkpoint;
}

/** Rolls `chain` back from `top` to `height` in chunks of `chunkBlocks`; `reorg` is recorded with the last chunk. */
export async function rewindTo(
  store: Store,
  chain: ChainId,
  source: string,
  height: number,
  top: number,
  options: { reorg?: Reorg; chunkBlocks?: number; now?: () => number; onChunk?: (checkpoint: StoredCheckpoint) => void } = {},
): Promise<void> {
  const chunk = options.chunkBlocks ?? REWIND_CHUNK_BLOCKS;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  for (let upper = top; upper > height; ) {
    const bottom = Math.max(height, upper - chunk);
    const reorg = options.reorg ?? null;
    const checkpoint = await revertAbove(store, chain, source, bottom, upper, bottom === height ? reorg : null, now(), reorg);
    options.onChunk?.(checkpoint);
    upper = bottom;
  }
}

export async function recordReorg(db: Db, chain: ChainId, reorg: Reorg, stamp: number): Promise<void> {
  await db.query(
    'ingest.reorg.record',
    sql`INSERT INTO reorgs (chain, height, prev_hash, new_hash, depth, detected_ts)
        VALUES (${chain}, ${reorg.height}, ${reorg.prevHash}, ${reorg.newHash}, ${reorg.depth}, ${stamp})`,
  );
}

/**
 * A store an indexer wrote while it still skipped undecodable blocks has a gap: a whole-block dead
 * letter (item null) at a height with no block, and blocks above it whose balances lack that
 * block's. Such a store is rewound to just below the first gap (emptied, when the gap is the
 * genesis block) and those letters deleted, so that the run fetches the block and everything after
 * it again. Returns the new checkpoint (null when emptied), or `checkpoint` when there is no gap.
 */
export async function healSkippedBlocks(store: Store, chain: ChainId, source: string, checkpoint: StoredCheckpoint, log?: Logger): Promise<StoredCheckpoint | null> {
  const [gap] = await store.query<{ height: string | number | null }>(
    'ingest.skipped_block',
    sql`SELECT min(d.height) AS height FROM dead_letters d
        WHERE d.chain = ${chain} AND d.item IS NULL AND d.height <= ${checkpoint.height}
          AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.chain = d.chain AND b.height = d.height)`,
  );
  if (gap?.height == null) return checkpoint;
  const height = Number(gap.height);
  log?.warn({ chain, height, tip: checkpoint.height }, `${chain} block ${height} was skipped when it was indexed: rewinding to fetch it and every later block again`);
  let healed: StoredCheckpoint | null = null;
  if (height === 0) {
    await store.transaction('ingest.heal_genesis', async (tx) => {
      await clearRollups(tx, chain);
      await deleteRawAbove(tx, chain, -1);
      await tx.query('ingest.heal_checkpoint', sql`DELETE FROM checkpoints WHERE chain = ${chain}`);
    });
  } else {
    await rewindTo(store, chain, source, height - 1, checkpoint.height, { onChunk: (c) => (healed = c) });
  }
  await store.query('ingest.heal_letters', sql`DELETE FROM dead_letters WHERE chain = ${chain} AND height >= ${height}`);
  return healed;
}
