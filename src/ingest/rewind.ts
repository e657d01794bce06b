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
import { revertRollups, RollupDeltas } from '../rollups/index.ts';
import { storedHashes, writeCheckpoint, type StoredCheckpoint } from './checkpoint.ts';
import { loadBlocks } from './load-blocks.ts';
import { deleteRawAbove } from './raw-store.ts';

export interface Reorg {
  height: number;
  prevHash: string;
  newHash: string;
  depth: number;
}

/** Blocks reverted per transaction: a deep rewind is many short transactions, not one long one. */
export const REWIND_CHUNK_BLOCKS = 2000;

/**
 * Reverts the written blocks bottom+1..top of `chain` in one transaction and moves `source`'s
 * checkpoint to `bottom`; records `reorg` with it when given. Returns the new checkpoint.
 */
export async function revertAbove(store: Store, chain: ChainId, source: string, bottom: number, top: number, reorg: Reorg | null, stamp: number): Promise<StoredCheckpoint> {
  const [firstReverted] = await store.query<{ ts: number }>('ingest.reorg.first_ts', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${bottom + 1}`);
  const [bottomBlock] = await store.query<{ ts: number }>('ingest.previous_ts', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${bottom}`);
  const bottomHash = (await storedHashes(store, chain, bottom, bottom)).get(bottom) ?? '';
  const checkpoint = { height: bottom, hash: bottomHash, rollupsHeight: bottom };
  await store.transaction('ingest.reorg', async (tx) => {
    const reverted = await loadBlocks(tx, chain, bottom + 1, top);
    // The first reverted block's interval (from the block below) was added with it: subtract it too.
    const deltas = new RollupDeltas(chain, bottomBlock?.ts ?? null);
    for (const block of reverted) deltas.addBlock(block);
    await revertRollups(tx, deltas, bottom, firstReverted?.ts ?? 0, () => deleteRawAbove(tx, chain, bottom));
    if (reorg) await recordReorg(tx, chain, reorg, stamp);
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
    const checkpoint = await revertAbove(store, chain, source, bottom, upper, bottom === height ? (options.reorg ?? null) : null, now());
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
