/**
 * The recover step, for a block that forks from the chain held (check-parent.ts): `findFork`
 * finds where its branch meets ours and fetches the branch below it; `rollBack` makes the common
 * ancestor the tip. Failure policy: a fork deeper than the reorg limit, below the source's
 * finalized block (when stored blocks would be replaced), or sharing not even the genesis block
 * stalls the chain; a branch block that does not decode is fetched again (fetch.ts); a source that
 * cannot tell where it forked, or cannot give a block of its own branch, is a bug (IngestError).
 */
import type { CanonicalBlock } from '../../chain/model.ts';
import type { StoredCheckpoint } from '../checkpoint.ts';
import { rewindTo, type Reorg } from '../rewind.ts';
import { IngestError, type RunContext } from './context.ts';
import { refetchBlock } from './fetch.ts';
import { dropBlocksFrom, type Tip } from './queue.ts';
import { stallAt, type StallAt, type Stopped } from './stall.ts';
import { heldHash, settle, type RunState } from './state.ts';
import { write } from './write.ts';

/** Where a fork meets the chain held, and the new branch above it up to (not including) the block that showed it. */
export interface Fork {
  kind: 'fork';
  ancestor: number;
  branch: CanonicalBlock[];
}

/**
 * `tip`: the last block accepted; `written`: the store's checkpoint once the write in flight
 * commits; `hashAt`: the hash held at a height.
 */
export async function findFork(
  ctx: RunContext,
  block: CanonicalBlock,
  tip: Tip,
  written: StoredCheckpoint | null,
  hashAt: (height: number) => Promise<string | undefined>,
): Promise<Fork | StallAt | Stopped> {
  const { chain, source } = ctx;
  const limit = ctx.maxReorgDepth;
  const tooDeep = (ancestor: number) => stallAt(ancestor + 1, `a reorg deeper than the limit of ${limit} blocks: ${source.name}'s chain leaves the indexed one below height ${ancestor + 1} (indexed tip ${tip.height})`);
  let ancestor = block.height - 1;
  if ((await hashAt(ancestor)) !== block.parentHash) {
    if (!source.hashAt) throw new IngestError(`${chain} block ${block.height} does not extend the indexed chain and ${source.name} cannot tell where it forked`);
    ancestor--;
    for (; ancestor >= 0; ancestor--) {
      if (tip.height - ancestor > limit) return tooDeep(ancestor);
      const [ours, theirs] = await Promise.all([hashAt(ancestor), source.hashAt(ancestor)]);
      if (ours !== undefined && ours === theirs) break;
    }
    if (ancestor < 0) return stallAt(0, `${source.name} shares no block with the indexed chain, not even the genesis block: is it a node of another network?`);
  }
  if (tip.height - ancestor > limit) return tooDeep(ancestor);
  const finalized = await source.finalizedHeight?.();
  if (finalized != null && ancestor < finalized && written !== null && written.height > ancestor) {
    return stallAt(ancestor + 1, `${source.name} reorganised below its own finalized block ${finalized} (common ancestor ${ancestor}): finalized history is not rewritten`);
  }
  const branch: CanonicalBlock[] = [];
  for (let height = ancestor + 1; height < block.height; height++) {
    const item = await source.blockAt?.(height);
    if (!item || item.kind === 'caught-up') throw new IngestError(`${chain}: ${source.name} could not give block ${height} of the new branch`);
    if (item.kind === 'block') {
      branch.push(item.block);
      continue;
    }
    const again = await refetchBlock(ctx, item);
    if (again.kind !== 'block') return again;
    branch.push(again.block);
  }
  return { kind: 'fork', ancestor, branch };
}

/**
 * Makes `ancestor` the tip: drops the queued blocks above it and, when stored blocks are replaced,
 * rolls the store back to it (rewind.ts: in chunks, the reorg recorded with the last) after the
 * rollups owed are applied; a rollback settled in memory is queued for the next write to record.
 * `newBranchFirst` and `newTip`: the new branch's first block and its head, for the record.
 */
export async function rollBack(ctx: RunContext, state: RunState, ancestor: number, newBranchFirst: CanonicalBlock, newTip: CanonicalBlock): Promise<void> {
  const { chain, source } = ctx;
  const { queue, written } = state;
  await settle(state);
  const oldTip = queue.tip!;
  const prevHash = (await heldHash(ctx, state, ancestor + 1)) ?? '';
  const reorg: Reorg = {
    height: ancestor + 1,
    prevHash,
    newHash: newBranchFirst.hash,
    depth: oldTip.height - ancestor,
    oldTip: { ...oldTip },
    newTip: { height: newTip.height, hash: newTip.hash },
  };
  const reachesStore = written.checkpoint !== null && written.checkpoint.height > ancestor;
  // Reorgs settled in memory are routine in a bulk load; rolling back the store is news.
  if (reachesStore) ctx.log?.warn({ chain, ...reorg }, 'reorg: rolling back to the common ancestor');
  else ctx.log?.debug({ chain, ...reorg }, 'reorg: dropping queued blocks above the common ancestor');
  dropBlocksFrom(queue, ancestor + 1);
  if (reachesStore) {
    // The rollups must hold every written block before some of them are subtracted.
    if (state.owed.deltas) await write(ctx, state, true);
    await rewindTo(ctx.store, chain, source.name, ancestor, written.checkpoint!.height, {
      reorg,
      chunkBlocks: ctx.rollbackChunkBlocks,
      now: ctx.now,
      onChunk: (checkpoint) => (written.checkpoint = checkpoint),
    });
    written.tipTs = null;
    state.progress.height = ancestor;
    state.progress.reorgs++;
  } else {
    queue.reorgs.push(reorg);
  }
  queue.tip = { height: ancestor, hash: (await heldHash(ctx, state, ancestor)) ?? '' };
}
