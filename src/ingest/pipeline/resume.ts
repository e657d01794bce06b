/**
 * The first step of a run: where the store stands. The checkpoint; rollups brought up to the raw
 * rows if a bulk load left them behind; a store an older indexer wrote past a skipped block rewound
 * below it (rewind.ts, healSkippedBlocks); the chain's recorded stall; and on a followed chain the
 * charts' kept state loaded (block by block, days close as midnights pass).
 */
import { warmCharts } from '../../rollups/index.ts';
import { readCheckpoint, type StoredCheckpoint } from '../checkpoint.ts';
import { healSkippedBlocks } from '../rewind.ts';
import { readStall, type Stall } from '../stalls.ts';
import type { RunContext } from './context.ts';
import { catchUpRollups } from './rollups.ts';

export interface Resumed {
  /** The checkpoint to go on from (null: nothing stored). */
  written: StoredCheckpoint | null;
  stall: Stall | null;
}

export async function resume(ctx: RunContext): Promise<Resumed> {
  const { store, chain, source } = ctx;
  let written = await readCheckpoint(store, chain, source.name);
  if (written && written.rollupsHeight < written.height) written = await catchUpRollups(store, chain, source.name, written, ctx.now());
  if (written) written = await healSkippedBlocks(store, chain, source.name, written, ctx.log);
  const stall = await readStall(store, chain);
  if (!ctx.bulk) await warmCharts(store, chain);
  return { written, stall };
}
