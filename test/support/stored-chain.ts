/**
 * A chain's blocks put in a store the way a write of the pipeline leaves them (raw rows, rollups,
 * checkpoint; one transaction), without the pipeline: for tests of one of its steps.
 */
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { writeCheckpoint } from '../../src/ingest/checkpoint.ts';
import { writeRawRows } from '../../src/ingest/raw-store.ts';
import { addBlockRows, emptyRows } from '../../src/ingest/rows.ts';
import { applyRollups, RollupDeltas } from '../../src/rollups/index.ts';
import type { Store } from '../../src/store/store.ts';

/** Stores `blocks` (consecutive, on top of `below`, the block under the first, if any) for source `source`. */
export async function storeBlocks(store: Store, blocks: CanonicalBlock[], below: CanonicalBlock | null = null, source = 'test'): Promise<void> {
  const last = blocks.at(-1)!;
  await store.transaction('test.store_blocks', async (tx) => {
    const rows = emptyRows();
    for (const block of blocks) addBlockRows(rows, block);
    await writeRawRows(tx, rows);
    const deltas = new RollupDeltas(last.chain, below?.timestamp ?? null);
    for (const block of blocks) deltas.addBlock(block);
    await applyRollups(tx, deltas);
    await writeCheckpoint(tx, last.chain, source, { height: last.height, hash: last.hash, rollupsHeight: last.height }, 1_700_000_000);
  });
}
