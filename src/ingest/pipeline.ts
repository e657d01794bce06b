/**
 * The ingest pipeline: takes canonical blocks from a source and writes them, in batches, with
 * their rollups and a checkpoint in one transaction each. Idempotent (a replayed block with the
 * stored hash is skipped), resumable (a run starts after the checkpoint), and reorg-aware (a block
 * whose parent is not the stored tip rolls the store back to the common ancestor first).
 *
 * In a bulk load (see bulk.ts) batches carry raw rows only and the newest blocks are held back in
 * memory, so the shallow reorgs of a chain being generated or synced resolve without touching
 * the store.
 */
import sql from 'sql-template-tag';
import type { Logger } from 'pino';
import type { ChainId } from '../chain/chains.ts';
import type { BlockSource, CanonicalBlock, SourceItem } from '../chain/model.ts';
import type { Db, Store } from '../store/store.ts';
import { formatDay } from '../api/format.ts';
import { applyRollups, closeDays, revertRollups } from '../rollups/index.ts';
import { readCheckpoint, storedHashes, writeCheckpoint, type Checkpoint } from './checkpoint.ts';
import { deleteRawAbove, writeDeadLetters, writeRawRows, type DeadLetter } from './raw-store.ts';
import { addBlockRows, emptyRows } from './rows.ts';

export interface IngestProgress {
  chain: ChainId;
  /** Height of the last block written. */
  height: number;
  blocks: number;
  transactions: number;
  reorgs: number;
  deadLetters: number;
}

export interface IngestOptions {
  /** First height to read; default: after the checkpoint (or 0). */
  fromHeight?: number;
  /** Stop after writing this height. */
  toHeight?: number;
  /** Most blocks in one write transaction (default 1000; 20000 in a bulk load). */
  batchBlocks?: number;
  /** Most transactions in one write transaction (default 20000; 200000 in a bulk load). */
  batchTransactions?: number;
  /** Write raw rows only and hold the newest blocks back: the store is being bulk loaded. */
  bulk?: boolean;
  logger?: Logger;
  onProgress?: (progress: IngestProgress) => void;
  signal?: AbortSignal;
  /** Clock for reorg and dead-letter records (Unix seconds). */
  now?: () => number;
}

export type IngestResult = IngestProgress;

/** Blocks a bulk load keeps in memory: reorgs up to this depth never reach the store. */
const BULK_HOLDBACK = 64;

interface Reorg {
  height: number;
  prevHash: string;
  newHash: string;
  depth: number;
}

export class IngestError extends Error {
  override name = 'IngestError';
}

export async function ingest(store: Store, source: BlockSource, options: IngestOptions = {}): Promise<IngestResult> {
  const chain = source.chain;
  const bulk = options.bulk ?? false;
  const maxBlocks = options.batchBlocks ?? (bulk ? 20_000 : 1000);
  const maxTxs = options.batchTransactions ?? (bulk ? 200_000 : 20_000);
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const log = options.logger;

  const checkpoint = await readCheckpoint(store, chain, source.name);
  // The last block accepted (written or pending); hash '' after an undecodable block.
  let tip: Checkpoint | null = checkpoint;
  let written: Checkpoint | null = checkpoint;
  let pending: CanonicalBlock[] = [];
  let pendingTxs = 0;
  let pendingLetters: DeadLetter[] = [];
  let pendingReorgs: Reorg[] = [];
  const progress: IngestProgress = { chain, height: checkpoint?.height ?? -1, blocks: 0, transactions: 0, reorgs: 0, deadLetters: 0 };

  const pendingHash = (height: number) => pending.find((b) => b.height === height)?.hash;

  async function hashAtHeight(height: number): Promise<string | undefined> {
    const inMemory = pendingHash(height);
    if (inMemory !== undefined) return inMemory;
    return (await storedHashes(store, chain, height, height)).get(height);
  }

  /** Writes the pending blocks (all, or all but the held-back ones in a bulk load). */
  async function flush(final: boolean): Promise<void> {
    const keep = bulk && !final ? BULK_HOLDBACK : 0;
    const toWrite = pending.slice(0, Math.max(0, pending.length - keep));
    if (toWrite.length === 0 && pendingLetters.length === 0 && pendingReorgs.length === 0) return;
    const last = toWrite.at(-1);
    const letters = pendingLetters.filter((letter) => !last || letter.height === null || letter.height <= last.height || final);
    const stamp = now();
    await store.transaction('ingest.batch', async (tx) => {
      if (toWrite.length > 0) {
        const rows = emptyRows();
        for (const block of toWrite) addBlockRows(rows, block);
        await writeRawRows(tx, rows);
        if (!bulk) await applyBatchRollups(tx, chain, toWrite, written);
      }
      await writeDeadLetters(tx, source.name, letters, stamp);
      for (const reorg of pendingReorgs) await recordReorg(tx, chain, reorg, stamp);
      const next = last ? { height: last.height, hash: last.hash } : written;
      if (next) await writeCheckpoint(tx, chain, source.name, next, stamp);
    });
    const txCount = toWrite.reduce((n, b) => n + b.transactions.length, 0);
    progress.blocks += toWrite.length;
    progress.transactions += txCount;
    progress.deadLetters += letters.length;
    progress.reorgs += pendingReorgs.length;
    if (last) {
      written = { height: last.height, hash: last.hash };
      progress.height = last.height;
    }
    pending = pending.slice(toWrite.length);
    pendingTxs -= txCount;
    pendingLetters = pendingLetters.filter((letter) => !letters.includes(letter));
    pendingReorgs = [];
    options.onProgress?.({ ...progress });
  }

  /** Makes `ancestor` the tip: drops pending blocks above it and rolls the store back if needed. */
  async function rollBackTo(ancestor: number, newBranchFirst: CanonicalBlock): Promise<void> {
    const oldTip = tip!.height;
    const prevHash = (await hashAtHeight(ancestor + 1)) ?? '';
    const reorg: Reorg = { height: ancestor + 1, prevHash, newHash: newBranchFirst.hash, depth: oldTip - ancestor };
    log?.warn({ chain, ...reorg }, 'reorg: rolling back to the common ancestor');
    pending = pending.filter((block) => block.height <= ancestor);
    pendingTxs = pending.reduce((n, b) => n + b.transactions.length, 0);
    if (written && written.height > ancestor) {
      const [firstReverted] = await store.query<{ ts: number }>(
        'ingest.reorg.first_ts',
        sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${ancestor + 1}`,
      );
      const ancestorHash = (await storedHashes(store, chain, ancestor, ancestor)).get(ancestor) ?? '';
      const stamp = now();
      await store.transaction('ingest.reorg', async (tx) => {
        const scope = { chain, fromHeight: ancestor + 1, toHeight: written!.height };
        const deleteRaw = () => deleteRawAbove(tx, chain, ancestor);
        if (bulk) await deleteRaw();
        else await revertRollups(tx, scope, firstReverted?.ts ?? 0, deleteRaw);
        await recordReorg(tx, chain, reorg, stamp);
        await writeCheckpoint(tx, chain, source.name, { height: ancestor, hash: ancestorHash }, stamp);
      });
      written = { height: ancestor, hash: ancestorHash };
      progress.height = ancestor;
      progress.reorgs++;
    } else {
      pendingReorgs.push(reorg);
    }
    tip = { height: ancestor, hash: (await hashAtHeight(ancestor)) ?? '' };
  }

  /** Finds where `block`'s branch meets ours, rolls back to it and fetches the branch up to `block`. */
  async function handleFork(block: CanonicalBlock): Promise<void> {
    let ancestor = block.height - 1;
    if ((await hashAtHeight(ancestor)) !== block.parentHash) {
      if (!source.hashAt) {
        throw new IngestError(`${chain} block ${block.height} does not extend the indexed chain and ${source.name} cannot tell where it forked`);
      }
      ancestor--;
      for (; ancestor >= 0; ancestor--) {
        const [ours, theirs] = await Promise.all([hashAtHeight(ancestor), source.hashAt(ancestor)]);
        if (ours !== undefined && ours === theirs) break;
      }
      if (ancestor < 0) throw new IngestError(`${chain}: no common ancestor with ${source.name}`);
    }
    const branch: CanonicalBlock[] = [];
    for (let height = ancestor + 1; height < block.height; height++) {
      const item = await source.blockAt?.(height);
      if (!item || item.kind !== 'block') throw new IngestError(`${chain}: ${source.name} could not give block ${height} of the new branch`);
      branch.push(item.block);
    }
    await rollBackTo(ancestor, branch[0] ?? block);
    for (const b of [...branch, block]) accept(b);
  }

  function accept(block: CanonicalBlock): void {
    pending.push(block);
    pendingTxs += block.transactions.length;
    for (const letter of block.deadLetters) pendingLetters.push({ ...letter, chain, height: block.height });
    tip = { height: block.height, hash: block.hash };
  }

  const from = options.fromHeight ?? (checkpoint ? checkpoint.height + 1 : 0);
  const iterator = source.blocks(from)[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (options.signal?.aborted) break;
      const next = await iterator.next();
      if (next.done) break;
      const item: SourceItem = next.value;
      if (item.kind === 'caught-up') {
        await flush(true);
        continue;
      }
      if (item.kind === 'undecodable') {
        pendingLetters.push({ chain, height: item.height, item: null, error: item.error, payload: item.payload });
        // The next block is accepted without a parent check (unless this is a replay of the past).
        if (!tip || item.height > tip.height) tip = { height: item.height, hash: '' };
        continue;
      }
      const block = item.block;
      if (block.chain !== chain) throw new IngestError(`${source.name} yielded a ${block.chain} block to the ${chain} pipeline`);
      if (options.toHeight !== undefined && block.height > options.toHeight) break;

      if (tip && block.height <= tip.height) {
        if ((await hashAtHeight(block.height)) === block.hash) continue; // a replay of what we have
        await handleFork(block);
      } else if (tip && block.height === tip.height + 1 && tip.hash !== '' && block.parentHash !== tip.hash) {
        await handleFork(block);
      } else if (tip && block.height > tip.height + 1) {
        throw new IngestError(`${chain}: ${source.name} skipped from height ${tip.height} to ${block.height}`);
      } else {
        accept(block);
      }
      if (pending.length >= maxBlocks + (bulk ? BULK_HOLDBACK : 0) || pendingTxs >= maxTxs) await flush(false);
    }
    await flush(true);
  } finally {
    await iterator.return?.();
  }
  return progress;
}

/** Applies rollups for freshly written blocks and closes the days they completed. */
async function applyBatchRollups(tx: Db, chain: ChainId, blocks: CanonicalBlock[], before: Checkpoint | null): Promise<void> {
  const first = blocks[0]!;
  const last = blocks.at(-1)!;
  await applyRollups(tx, { chain, fromHeight: first.height, toHeight: last.height });
  // Days before the last block's day are complete; the batch may have completed the day of the
  // block before it too.
  let firstDay = formatDay(first.timestamp);
  if (before && before.height >= 0) {
    const [previous] = await tx.query<{ ts: number }>('ingest.previous_ts', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${before.height}`);
    if (previous) firstDay = formatDay(previous.ts);
  }
  const lastClosed = formatDay(last.timestamp - 86_400);
  if (firstDay <= lastClosed) await closeDays(tx, chain, firstDay, lastClosed);
}

async function recordReorg(db: Db, chain: ChainId, reorg: Reorg, stamp: number): Promise<void> {
  await db.query(
    'ingest.reorg.record',
    sql`INSERT INTO reorgs (chain, height, prev_hash, new_hash, depth, detected_ts)
        VALUES (${chain}, ${reorg.height}, ${reorg.prevHash}, ${reorg.newHash}, ${reorg.depth}, ${stamp})`,
  );
}
