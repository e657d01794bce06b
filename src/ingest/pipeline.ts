/**
 * The ingest pipeline: takes canonical blocks from a source and writes them, in batches, with
 * their rollups and a checkpoint in one transaction each. Idempotent (a replayed block with the
 * stored hash is skipped), resumable (a run starts after the checkpoint), and reorg-aware (a block
 * whose parent is not the stored tip rolls the store back to the common ancestor first).
 *
 * A run is the loop below over steps, one module each under pipeline/, each a function of the
 * run's context (context.ts: the options, fixed), the run's state (state.ts: the one object that
 * lives across batches) and its own arguments, returning what the next step needs:
 * - resume: where the store stands (checkpoint, rollups caught up, skipped blocks healed, stall);
 * - fetch: the next item, a block that does not decode fetched again → block | caught-up | end | stall;
 * - check parent: the block extends the tip, replays it, forks from it, or leaves a gap (stall);
 * - recover: a fork's common ancestor and new branch (or a stall), then the rollback to it;
 * - batch: the queued blocks the next write takes (a bulk load holds the newest back);
 * - write: one transaction of raw rows, rollups (rollups.ts), dead letters, reorgs, events and
 *   checkpoint, left in flight while the next batch is read and prepared;
 * - stall: what is queued below the height is written, the stall recorded and logged, and the run
 *   ends with ChainStalledError.
 * A step that finds the chain cannot go on returns a stall instead of acting on it, so each
 * step's failure policy reads in this loop. Store outages are not handled here: a failed write
 * ends the run, and the indexer's supervisor (indexer.ts) waits for the store and starts a new run
 * from the checkpoint.
 */
import type { BlockSource, SourceItem } from '../chain/model.ts';
import type { Store } from '../store/store.ts';
import { checkParent, nextHeight } from './pipeline/check-parent.ts';
import { runContext, type IngestOptions, type IngestResult, type RunContext } from './pipeline/context.ts';
import { fetchItem } from './pipeline/fetch.ts';
import { accept, isFull } from './pipeline/queue.ts';
import { findFork, rollBack } from './pipeline/recover.ts';
import { resume } from './pipeline/resume.ts';
import { stall } from './pipeline/stall.ts';
import { heldHash, settle, startState, type RunState } from './pipeline/state.ts';
import { write } from './pipeline/write.ts';

export { ChainStalledError } from './stalls.ts';
export { DEFAULT_REFETCH, IngestError } from './pipeline/context.ts';
export type { IngestOptions, IngestProgress, IngestResult, RefetchPolicy } from './pipeline/context.ts';

export async function ingest(store: Store, source: BlockSource, options: IngestOptions = {}): Promise<IngestResult> {
  const ctx = runContext(store, source, options);
  const { written, stall } = await resume(ctx);
  const state = startState(ctx, written, stall);
  const from = options.fromHeight ?? (written ? written.height + 1 : 0);
  const iterator = source.blocks(from)[Symbol.asyncIterator]();
  try {
    await advance(ctx, state, iterator, options);
    await write(ctx, state, true);
  } finally {
    await iterator.return?.();
    // An error above may leave a write in flight: let it finish (its failure, if any, is secondary).
    await settle(state).catch(() => {});
  }
  return state.progress;
}

/** Item by item, until the source ends, the run is stopped or the chain stalls. */
async function advance(ctx: RunContext, state: RunState, iterator: AsyncIterator<SourceItem>, options: IngestOptions): Promise<void> {
  const { queue } = state;
  const hashAt = (height: number) => heldHash(ctx, state, height);
  for (;;) {
    if (ctx.signal?.aborted) return;
    const item = await fetchItem(ctx, iterator);
    switch (item.kind) {
      case 'end':
      case 'stopped':
        return;
      case 'stall':
        return stall(ctx, state, item);
      case 'caught-up':
        // At the source's head: everything queued is written, and the completed days closed with it.
        await write(ctx, state, true);
        if (options.untilCaughtUp) return;
        continue;
    }
    const { block } = item;
    if (options.toHeight !== undefined && block.height > options.toHeight) return;
    const verdict = await checkParent(block, queue.tip, nextHeight(queue.tip, options.fromHeight), hashAt, ctx.source.name);
    switch (verdict.kind) {
      case 'replay':
        break;
      case 'extends':
        accept(queue, block, ctx.chain, ctx.log);
        break;
      case 'stall':
        return stall(ctx, state, verdict);
      case 'fork': {
        const fork = await findFork(ctx, block, queue.tip!, state.written.checkpoint, hashAt);
        if (fork.kind === 'stopped') return;
        if (fork.kind === 'stall') return stall(ctx, state, fork);
        await rollBack(ctx, state, fork.ancestor, fork.branch[0] ?? block, block);
        for (const b of [...fork.branch, block]) accept(queue, b, ctx.chain, ctx.log);
      }
    }
    if (isFull(queue, ctx)) await write(ctx, state, false);
  }
}
