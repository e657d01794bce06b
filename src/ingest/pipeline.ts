/**
 * The ingest pipeline: takes canonical blocks from a source and writes them, in batches, with
 * their rollups and a checkpoint in one transaction each. Idempotent (a replayed block with the
 * stored hash is skipped), resumable (a run starts after the checkpoint), and reorg-aware (a block
 * whose parent is not the stored tip rolls the store back to the common ancestor first).
 *
 * In a bulk load (see bulk.ts) batches are large, the newest blocks are held back in memory so
 * the shallow reorgs of a chain being generated or synced resolve without touching the store,
 * and rollup deltas are gathered over many batches and applied in large steps. The checkpoint
 * records how far the rollups reach; a run that finds them behind the raw rows (a bulk load
 * interrupted between steps) catches up from the raw rows before going on.
 */
import sql from 'sql-template-tag';
import type { Logger } from 'pino';
import type { ChainId } from '../chain/chains.ts';
import type { BlockSource, CanonicalBlock, SourceItem } from '../chain/model.ts';
import type { Db, Store } from '../store/store.ts';
import { lastClosedDay } from '../time.ts';
import { applyRollups, closeDays, firstOpenDay, revertRollups, RollupDeltas, warmCharts } from '../rollups/index.ts';
import { readCheckpoint, storedHashes, writeCheckpoint, type StoredCheckpoint } from './checkpoint.ts';
import { loadBlocks } from './load-blocks.ts';
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
  /** The store is being bulk loaded (see bulk.ts). */
  bulk?: boolean;
  /** Return once the source has caught up with its head (everything read is written first). */
  untilCaughtUp?: boolean;
  /**
   * In a bulk load, apply gathered rollup deltas once they hold this many keys (default 3,000,000,
   * about half a gigabyte of heap): a demo-sized chain is applied in one step, which
   * saves the embedded store a step's large fixed cost.
   */
  bulkDeltaKeys?: number;
  logger?: Logger;
  onProgress?: (progress: IngestProgress) => void;
  signal?: AbortSignal;
  /** Clock for reorg and dead-letter records (Unix seconds). */
  now?: () => number;
}

export type IngestResult = IngestProgress;

/** Blocks a bulk load keeps in memory: reorgs up to this depth never reach the store. */
const BULK_HOLDBACK = 64;
/** Blocks read back per step when rollups catch up with the raw rows. */
const CATCH_UP_BLOCKS = 5000;

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
  const maxDeltaKeys = options.bulkDeltaKeys ?? 3_000_000;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const log = options.logger;

  let written: StoredCheckpoint | null = await readCheckpoint(store, chain, source.name);
  if (written && written.rollupsHeight < written.height) written = await catchUpRollups(store, chain, source.name, written, now());
  // Block by block, days close as midnights pass: the charts load what they keep between closes first.
  if (!bulk) await warmCharts(store, chain);
  // The last block accepted (written or pending); hash '' after an undecodable block.
  let tip: { height: number; hash: string } | null = written;
  let pending: CanonicalBlock[] = [];
  let pendingTxs = 0;
  let pendingLetters: DeadLetter[] = [];
  let pendingReorgs: Reorg[] = [];
  // Deltas of written blocks not yet applied to the rollups (bulk loads only).
  let deferred: RollupDeltas | null = null;
  let lastWrittenTs: number | null = null;
  /** The rollups seen holding rows of the chain: not asked again at each batch (freshRollups). */
  const filledRollups = new Set<string>();
  const progress: IngestProgress = { chain, height: written?.height ?? -1, blocks: 0, transactions: 0, reorgs: 0, deadLetters: 0 };

  const pendingHash = (height: number) => pending.find((b) => b.height === height)?.hash;

  async function hashAtHeight(height: number): Promise<string | undefined> {
    const inMemory = pendingHash(height) ?? inflightBlocks.find((b) => b.height === height)?.hash;
    if (inMemory !== undefined) return inMemory;
    return (await storedHashes(store, chain, height, height)).get(height);
  }

  async function previousTs(height: number): Promise<number | null> {
    if (lastWrittenTs !== null) return lastWrittenTs;
    const [row] = await store.query<{ ts: number }>('ingest.previous_ts', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${height - 1}`);
    return row?.ts ?? null;
  }

  // One write may be in flight while the next batch is read and prepared (generation and
  // encoding in this process overlap with the store's work); its blocks stay visible to
  // hashAtHeight until it commits, and anything that reads or rolls back the store settles it first.
  let inflight: Promise<void> | null = null;
  let inflightBlocks: CanonicalBlock[] = [];
  async function settle(): Promise<void> {
    const write = inflight;
    inflight = null;
    if (write) await write;
  }

  /** Writes the pending blocks (all, or all but the held-back ones in a bulk load). */
  async function flush(final: boolean): Promise<void> {
    await settle();
    const keep = bulk && !final ? BULK_HOLDBACK : 0;
    const toWrite = pending.slice(0, Math.max(0, pending.length - keep));
    if (toWrite.length === 0 && pendingLetters.length === 0 && pendingReorgs.length === 0 && !(final && deferred)) return;
    const last = toWrite.at(-1);
    const letters = pendingLetters.filter((letter) => final || !last || letter.height === null || letter.height <= last.height);
    const reorgs = pendingReorgs;
    const stamp = now();

    let deltas = deferred;
    if (toWrite.length > 0) {
      deltas ??= new RollupDeltas(chain, await previousTs(toWrite[0]!.height));
      for (const block of toWrite) deltas.addBlock(block);
    }
    if (toWrite.length > 0 && deltas && !bulk) await seedOpenings(toWrite, deltas);
    const applyNow = deltas !== null && (!bulk || final || deltas.size >= maxDeltaKeys);
    const rows = emptyRows();
    for (const block of toWrite) addBlockRows(rows, block);
    const previous = written;
    const checkpoint = last
      ? { height: last.height, hash: last.hash, rollupsHeight: applyNow ? last.height : (previous?.rollupsHeight ?? -1) }
      : previous && { ...previous, rollupsHeight: applyNow ? previous.height : previous.rollupsHeight };

    // The batch leaves the queue now; the state below describes the store once it commits.
    const txCount = toWrite.reduce((n, b) => n + b.transactions.length, 0);
    written = checkpoint;
    if (last) lastWrittenTs = last.timestamp;
    deferred = applyNow ? null : deltas;
    pending = pending.slice(toWrite.length);
    pendingTxs -= txCount;
    pendingLetters = pendingLetters.filter((letter) => !letters.includes(letter));
    pendingReorgs = [];
    inflightBlocks = toWrite;

    inflight = store
      .transaction('ingest.batch', async (tx) => {
        if (toWrite.length > 0) await writeRawRows(tx, rows);
        if (applyNow && deltas) {
          await applyRollups(tx, deltas, { filled: filledRollups });
          if (!bulk) await closeCompletedDays(tx, chain, deltas);
        }
        await writeDeadLetters(tx, source.name, letters, stamp);
        for (const reorg of reorgs) await recordReorg(tx, chain, reorg, stamp);
        if (checkpoint) await writeCheckpoint(tx, chain, source.name, checkpoint, stamp);
      })
      .then(async () => {
        // PGlite runs no background checkpointer: without this, a bulk load piles up WAL.
        if (bulk && store.kind === 'pglite' && toWrite.length > 0) await store.exec('ingest.checkpoint_wal', 'CHECKPOINT');
        inflightBlocks = [];
        progress.blocks += toWrite.length;
        progress.transactions += txCount;
        progress.deadLetters += letters.length;
        progress.reorgs += reorgs.length;
        if (last) progress.height = last.height;
        options.onProgress?.({ ...progress });
      });
    // A failure surfaces at the next settle(); until then keep it from being reported as unhandled.
    inflight.catch(() => {});
    if (final) await settle();
  }

  /**
   * Indexing from above genesis: the addresses of `blocks` never seen before (no summary, no
   * opening) get their balance at the block below the chain's first stored one as an opening
   * balance, recorded in the block where each first appears and added to `deltas`.
   */
  let openingsStart: number | null = null;
  async function seedOpenings(blocks: CanonicalBlock[], deltas: RollupDeltas): Promise<void> {
    if (!source.openingBalances) return;
    // The chain's first stored height, read once: nothing is ever written below it afterwards.
    if (openingsStart === null) {
      const [first] = await store.query<{ height: number }>('ingest.openings.first', sql`SELECT height FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1`);
      openingsStart = first ? Number(first.height) : blocks[0]!.height;
    }
    const start = openingsStart;
    if (start <= 0) return;
    const seen = [...deltas.seenAt.keys()];
    const known = await store.query<{ address: string }>(
      'ingest.openings.known',
      sql`SELECT address FROM address_summary WHERE chain = ${chain} AND address = ANY(${seen}::text[])
          UNION ALL
          SELECT address FROM opening_balances WHERE chain = ${chain} AND address = ANY(${seen}::text[])`,
    );
    const knownSet = new Set(known.map((row) => row.address));
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

  /** Makes `ancestor` the tip: drops pending blocks above it and rolls the store back if needed. */
  async function rollBackTo(ancestor: number, newBranchFirst: CanonicalBlock): Promise<void> {
    await settle();
    const oldTip = tip!.height;
    const prevHash = (await hashAtHeight(ancestor + 1)) ?? '';
    const reorg: Reorg = { height: ancestor + 1, prevHash, newHash: newBranchFirst.hash, depth: oldTip - ancestor };
    const reachesStore = written !== null && written.height > ancestor;
    // Reorgs settled in memory are routine in a bulk load; rolling back the store is news.
    if (reachesStore) log?.warn({ chain, ...reorg }, 'reorg: rolling back to the common ancestor');
    else log?.debug({ chain, ...reorg }, 'reorg: dropping pending blocks above the common ancestor');
    pending = pending.filter((block) => block.height <= ancestor);
    pendingTxs = pending.reduce((n, b) => n + b.transactions.length, 0);
    if (reachesStore) {
      // The rollups must hold every written block before some of them are subtracted.
      if (deferred) await flush(true);
      const [firstReverted] = await store.query<{ ts: number }>(
        'ingest.reorg.first_ts',
        sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${ancestor + 1}`,
      );
      const [ancestorBlock] = await store.query<{ ts: number }>('ingest.previous_ts', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${ancestor}`);
      const ancestorHash = (await storedHashes(store, chain, ancestor, ancestor)).get(ancestor) ?? '';
      const stamp = now();
      await store.transaction('ingest.reorg', async (tx) => {
        // The reverted blocks, read back from the raw rows, give exactly the deltas they added.
        const reverted = await loadBlocks(tx, chain, ancestor + 1, written!.height);
        // The first reverted block's interval (from the ancestor) was added with it: subtract it too.
        const deltas = new RollupDeltas(chain, ancestorBlock?.ts ?? null);
        for (const block of reverted) deltas.addBlock(block);
        await revertRollups(tx, deltas, ancestor, firstReverted?.ts ?? 0, () => deleteRawAbove(tx, chain, ancestor));
        await recordReorg(tx, chain, reorg, stamp);
        await writeCheckpoint(tx, chain, source.name, { height: ancestor, hash: ancestorHash, rollupsHeight: ancestor }, stamp);
      });
      written = { height: ancestor, hash: ancestorHash, rollupsHeight: ancestor };
      lastWrittenTs = null;
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

  const from = options.fromHeight ?? (written ? written.height + 1 : 0);
  const iterator = source.blocks(from)[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (options.signal?.aborted) break;
      const next = await iterator.next();
      if (next.done) break;
      const item: SourceItem = next.value;
      if (item.kind === 'caught-up') {
        await flush(true);
        if (options.untilCaughtUp) break;
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
    // An error above may leave a write in flight: let it finish (its failure, if any, is secondary).
    await settle().catch(() => {});
  }
  return progress;
}

/** Applies the rollup deltas of written blocks the rollups do not hold yet, read back from the raw rows. */
async function catchUpRollups(store: Store, chain: ChainId, source: string, checkpoint: StoredCheckpoint, stamp: number): Promise<StoredCheckpoint> {
  let rollupsHeight = checkpoint.rollupsHeight;
  while (rollupsHeight < checkpoint.height) {
    const to = Math.min(checkpoint.height, rollupsHeight + CATCH_UP_BLOCKS);
    const from = rollupsHeight + 1;
    await store.transaction('ingest.catch_up', async (tx) => {
      const blocks = await loadBlocks(tx, chain, from, to);
      const [previous] = await tx.query<{ ts: number }>('ingest.previous_ts', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${from - 1}`);
      const deltas = new RollupDeltas(chain, previous?.ts ?? null);
      for (const block of blocks) deltas.addBlock(block);
      await applyRollups(tx, deltas);
      await writeCheckpoint(tx, chain, source, { ...checkpoint, rollupsHeight: to }, stamp);
    });
    rollupsHeight = to;
  }
  return { ...checkpoint, rollupsHeight };
}

/** Closes the days that the applied blocks completed (all days before the last block's day) and any a reorg reopened. */
async function closeCompletedDays(tx: Db, chain: ChainId, deltas: RollupDeltas): Promise<void> {
  const firstDay = await firstOpenDay(tx, chain);
  const lastClosed = lastClosedDay(deltas.lastTs);
  if (firstDay !== null && firstDay <= lastClosed) await closeDays(tx, chain, firstDay, lastClosed);
}

async function recordReorg(db: Db, chain: ChainId, reorg: Reorg, stamp: number): Promise<void> {
  await db.query(
    'ingest.reorg.record',
    sql`INSERT INTO reorgs (chain, height, prev_hash, new_hash, depth, detected_ts)
        VALUES (${chain}, ${reorg.height}, ${reorg.prevHash}, ${reorg.newHash}, ${reorg.depth}, ${stamp})`,
  );
}
