/**
 * The ingest pipeline: takes canonical blocks from a source and writes them, in batches, with
 * their rollups and a checkpoint in one transaction each. Idempotent (a replayed block with the
 * stored hash is skipped), resumable (a run starts after the checkpoint), and reorg-aware (a block
 * whose parent is not the stored tip rolls the store back to the common ancestor first).
 *
 * A run is a loop over named steps, each with its failure policy in one place:
 * - fetch: the next item from the source; a block the source could not decode is fetched again
 *   with backoff, and if it stays bad the chain stalls there (`stall`); a source that cannot go
 *   past a height (SourceHaltError) stalls the chain at that height;
 * - check parent: a block extends the tip, replays it, or forks from it (then `recover`); a block
 *   above the next height stalls the chain (nothing is ever stored past a gap);
 * - write: the queued blocks, their rollups, dead letters, events and the checkpoint, one transaction;
 * - follow: at the source's head, everything queued is written and the completed days closed;
 * - recover: a fork is rolled back to the common ancestor, in chunks, unless it is deeper than
 *   the reorg limit or below the source's finalized height (then the chain stalls);
 * - stall: what is queued is written, the height and the reason are recorded (`ingest_stalls`,
 *   shown by /readyz and the network health) and logged, and the run ends with ChainStalledError.
 * Store outages are not handled here: a failed write ends the run, and the indexer's supervisor
 * (indexer.ts) waits for the store and starts a new run from the checkpoint.
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
import { SourceHaltError, type BlockSource, type CanonicalBlock, type SourceItem } from '../chain/model.ts';
import type { Db, Store } from '../store/store.ts';
import { eachDay, lastClosedDay } from '../time.ts';
import { applyRollups, closeDays, firstOpenDay, RollupDeltas, warmCharts } from '../rollups/index.ts';
import { readCheckpoint, storedHashes, writeCheckpoint, type StoredCheckpoint } from './checkpoint.ts';
import { appendEvents, EVENTS_KEPT, PendingEvents, writeEvents } from './events.ts';
import { loadBlocks } from './load-blocks.ts';
import { writeDeadLetters, writeRawRows, type DeadLetter } from './raw-store.ts';
import { healSkippedBlocks, recordReorg, rewindTo, type Reorg } from './rewind.ts';
import { addBlockRows, emptyRows } from './rows.ts';
import { sleep } from './sleep.ts';
import { clearStall, ChainStalledError, readStall, recordStall, type Stall } from './stalls.ts';

export { ChainStalledError } from './stalls.ts';

export interface IngestProgress {
  chain: ChainId;
  /** Height of the last block written. */
  height: number;
  blocks: number;
  transactions: number;
  reorgs: number;
  deadLetters: number;
}

export interface RefetchPolicy {
  /** Fetches of a bad block after the first, before the chain stalls. */
  attempts: number;
  /** Wait before the second re-fetch (the first goes at once); doubled each time, up to `maxDelayMs`. */
  delayMs: number;
  maxDelayMs: number;
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
  /** Deepest rollback the run performs (blocks below the tip); deeper forks stall the chain. Default: none. */
  maxReorgDepth?: number;
  /** Blocks reverted per transaction in a rollback (default REWIND_CHUNK_BLOCKS). */
  rollbackChunkBlocks?: number;
  /** How a block that does not decode is fetched again (default: 5 more times over about 7 s). */
  refetch?: RefetchPolicy;
  logger?: Logger;
  onProgress?: (progress: IngestProgress) => void;
  signal?: AbortSignal;
  /** Clock for reorg, stall and dead-letter records (Unix seconds). */
  now?: () => number;
  /** Events kept per chain in the event log (default EVENTS_KEPT; see events.ts). */
  eventsKept?: number;
}

export type IngestResult = IngestProgress;

export const DEFAULT_REFETCH: RefetchPolicy = { attempts: 5, delayMs: 500, maxDelayMs: 8000 };

/** Blocks a bulk load keeps in memory: reorgs up to this depth never reach the store. */
const BULK_HOLDBACK = 64;
/** Blocks read back per step when rollups catch up with the raw rows. */
const CATCH_UP_BLOCKS = 5000;

/** The run was stopped (its signal) while it waited to fetch a block again. */
class RunStopped extends Error {}

/** A source that broke its contract (a block of another chain, say): a bug, not bad data. */
export class IngestError extends Error {
  override name = 'IngestError';
}

export async function ingest(store: Store, source: BlockSource, options: IngestOptions = {}): Promise<IngestResult> {
  return new IngestRun(store, source, options).run();
}

class IngestRun {
  private readonly chain: ChainId;
  private readonly bulk: boolean;
  private readonly maxBlocks: number;
  private readonly maxTxs: number;
  private readonly maxDeltaKeys: number;
  private readonly now: () => number;
  private readonly log: Logger | undefined;
  private readonly progress: IngestProgress;

  /** What the store holds once the write in flight commits. */
  private written: StoredCheckpoint | null = null;
  /** The last block accepted (written or queued). */
  private tip: { height: number; hash: string } | null = null;
  /** Blocks accepted and not yet handed to a write. */
  private queue: CanonicalBlock[] = [];
  private queuedTxs = 0;
  private queuedLetters: DeadLetter[] = [];
  private queuedReorgs: Reorg[] = [];
  /** Deltas of written blocks not yet applied to the rollups (bulk loads only). */
  private deferred: RollupDeltas | null = null;
  /** Events of those blocks: they are logged with the step that applies the rollups (events.ts). */
  private readonly pendingEvents: PendingEvents;
  private lastWrittenTs: number | null = null;
  /** The rollups seen holding rows of the chain: not asked again at each batch (freshRollups). */
  private readonly filledRollups = new Set<string>();
  /** The chain's recorded stall, cleared by the first write that gets past it. */
  private stalled: Stall | null = null;
  /** The chain's first stored height, once read (see seedOpenings). */
  private openingsStart: number | null = null;

  // One write may be in flight while the next batch is read and prepared (generation and
  // encoding in this process overlap with the store's work); its blocks stay visible to
  // hashAtHeight until it commits, and anything that reads or rolls back the store settles it first.
  private inflight: Promise<void> | null = null;
  private inflightBlocks: CanonicalBlock[] = [];

  constructor(
    private readonly store: Store,
    private readonly source: BlockSource,
    private readonly options: IngestOptions,
  ) {
    this.chain = source.chain;
    this.bulk = options.bulk ?? false;
    this.maxBlocks = options.batchBlocks ?? (this.bulk ? 20_000 : 1000);
    this.maxTxs = options.batchTransactions ?? (this.bulk ? 200_000 : 20_000);
    this.maxDeltaKeys = options.bulkDeltaKeys ?? 3_000_000;
    this.now = options.now ?? (() => Math.floor(Date.now() / 1000));
    this.pendingEvents = new PendingEvents(options.eventsKept ?? EVENTS_KEPT);
    this.log = options.logger;
    this.progress = { chain: this.chain, height: -1, blocks: 0, transactions: 0, reorgs: 0, deadLetters: 0 };
  }

  async run(): Promise<IngestResult> {
    const { store, chain, options } = this;
    this.written = await readCheckpoint(store, chain, this.source.name);
    if (this.written && this.written.rollupsHeight < this.written.height) this.written = await catchUpRollups(store, chain, this.source.name, this.written, this.now());
    if (this.written) this.written = await healSkippedBlocks(store, chain, this.source.name, this.written, this.log);
    this.tip = this.written;
    this.progress.height = this.written?.height ?? -1;
    this.stalled = await readStall(store, chain);
    // Block by block, days close as midnights pass: the charts load what they keep between closes first.
    if (!this.bulk) await warmCharts(store, chain);

    const from = options.fromHeight ?? (this.written ? this.written.height + 1 : 0);
    const iterator = this.source.blocks(from)[Symbol.asyncIterator]();
    try {
      await this.loop(iterator);
      await this.write(true);
    } finally {
      await iterator.return?.();
      // An error above may leave a write in flight: let it finish (its failure, if any, is secondary).
      await this.settle().catch(() => {});
    }
    return this.progress;
  }

  /** Fetch, check parent and write, item by item, until the source ends, the run is stopped or the chain stalls. */
  private async loop(iterator: AsyncIterator<SourceItem>): Promise<void> {
    const { options } = this;
    try {
      for (;;) {
        if (options.signal?.aborted) break;
        const item = await this.fetch(iterator);
        if (item === null) break;
        if (item.kind === 'caught-up') {
          await this.follow();
          if (options.untilCaughtUp) break;
          continue;
        }
        if (options.toHeight !== undefined && item.block.height > options.toHeight) break;
        await this.checkParent(item.block);
        if (this.queue.length >= this.maxBlocks + (this.bulk ? BULK_HOLDBACK : 0) || this.queuedTxs >= this.maxTxs) await this.write(false);
      }
    } catch (error) {
      if (!(error instanceof RunStopped)) throw error;
    }
  }

  // ---- fetch ---------------------------------------------------------------------------------

  /** The next block or caught-up mark (null at the source's end); a bad block is fetched again or stalls the chain. */
  private async fetch(iterator: AsyncIterator<SourceItem>): Promise<Exclude<SourceItem, { kind: 'undecodable' }> | null> {
    let next: IteratorResult<SourceItem>;
    try {
      next = await iterator.next();
    } catch (error) {
      // The source cannot go past this height: the chain stops there, and says why.
      if (error instanceof SourceHaltError) return this.stall(error.height, error.message, null);
      throw error;
    }
    if (next.done) return null;
    const item: SourceItem = next.value;
    if (item.kind === 'block' && item.block.chain !== this.chain) throw new IngestError(`${this.source.name} yielded a ${item.block.chain} block to the ${this.chain} pipeline`);
    if (item.kind !== 'undecodable') return item;
    return { kind: 'block', block: await this.refetch(item) };
  }

  /** Fetches a block that did not decode again, with backoff; stalls the chain if it stays bad. */
  private async refetch(bad: Extract<SourceItem, { kind: 'undecodable' }>): Promise<CanonicalBlock> {
    const policy = this.options.refetch ?? DEFAULT_REFETCH;
    let last = bad;
    for (let attempt = 1; attempt <= policy.attempts && this.source.blockAt; attempt++) {
      // The first re-fetch goes at once (another backend behind a load balancer may answer it), then with backoff.
      const delayMs = attempt === 1 ? 0 : Math.min(policy.maxDelayMs, policy.delayMs * 2 ** (attempt - 2));
      this.log?.warn({ chain: this.chain, height: bad.height, err: last.error, attempt, delayMs }, 'block does not decode: fetching it again');
      await sleep(delayMs, this.options.signal);
      if (this.options.signal?.aborted) throw new RunStopped();
      const again = await this.source.blockAt(bad.height);
      if (again?.kind === 'block') return again.block;
      if (again?.kind === 'undecodable') last = again;
    }
    return this.stall(bad.height, `block ${bad.height} does not decode: ${last.error}`, last.payload);
  }

  // ---- check parent --------------------------------------------------------------------------

  /** Queues `block` if it extends the tip; skips a replay; recovers from a fork; stalls on a gap. */
  private async checkParent(block: CanonicalBlock): Promise<void> {
    const tip = this.tip;
    if (tip && block.height <= tip.height) {
      if ((await this.hashAtHeight(block.height)) === block.hash) return; // a replay of what we have
      await this.recover(block);
    } else if (tip && block.height === tip.height + 1 && block.parentHash !== tip.hash) {
      await this.recover(block);
    } else if (block.height > this.nextHeight()) {
      await this.stall(this.nextHeight(), `${this.source.name} gave block ${block.height} where ${this.nextHeight()} was due`, null);
    } else {
      this.accept(block);
    }
  }

  /** The height the next block must have: after the tip, or where the run was told to start. */
  private nextHeight(): number {
    return this.tip ? this.tip.height + 1 : (this.options.fromHeight ?? 0);
  }

  private accept(block: CanonicalBlock): void {
    this.queue.push(block);
    this.queuedTxs += block.transactions.length;
    for (const letter of block.deadLetters) {
      this.queuedLetters.push({ ...letter, chain: this.chain, height: block.height });
      // Set aside, and said so: only what moves no value reaches here (docs/ingest.md).
      this.log?.warn({ chain: this.chain, height: block.height, item: letter.item, err: letter.error }, 'part of a block set aside as a dead letter');
    }
    this.tip = { height: block.height, hash: block.hash };
  }

  private async hashAtHeight(height: number): Promise<string | undefined> {
    const inMemory = this.queue.find((b) => b.height === height)?.hash ?? this.inflightBlocks.find((b) => b.height === height)?.hash;
    if (inMemory !== undefined) return inMemory;
    return (await storedHashes(this.store, this.chain, height, height)).get(height);
  }

  // ---- write ---------------------------------------------------------------------------------

  private async settle(): Promise<void> {
    const write = this.inflight;
    this.inflight = null;
    if (write) await write;
  }

  /** Writes the queued blocks (all, or all but the held-back ones in a bulk load). */
  private async write(final: boolean): Promise<void> {
    await this.settle();
    const { chain, store, bulk } = this;
    const keep = bulk && !final ? BULK_HOLDBACK : 0;
    const toWrite = this.queue.slice(0, Math.max(0, this.queue.length - keep));
    if (toWrite.length === 0 && this.queuedLetters.length === 0 && this.queuedReorgs.length === 0 && !(final && this.deferred)) return;
    const last = toWrite.at(-1);
    const letters = this.queuedLetters.filter((letter) => final || !last || letter.height === null || letter.height <= last.height);
    const reorgs = this.queuedReorgs;
    const stamp = this.now();

    let deltas = this.deferred;
    if (toWrite.length > 0) {
      deltas ??= new RollupDeltas(chain, await this.previousTs(toWrite[0]!.height));
      for (const block of toWrite) deltas.addBlock(block);
    }
    if (toWrite.length > 0 && deltas && !bulk) await this.seedOpenings(toWrite, deltas);
    const applyNow = deltas !== null && (!bulk || final || deltas.size >= this.maxDeltaKeys);
    const rows = emptyRows();
    for (const block of toWrite) addBlockRows(rows, block);
    const previous = this.written;
    const checkpoint = last
      ? { height: last.height, hash: last.hash, rollupsHeight: applyNow ? last.height : (previous?.rollupsHeight ?? -1) }
      : previous && { ...previous, rollupsHeight: applyNow ? previous.height : previous.rollupsHeight };
    const clearsStall = this.stalled !== null && last !== undefined && last.height >= this.stalled.height;
    // Blocks whose rollups wait (a bulk load's batches) are announced with the step that applies them.
    const logsEvents = !bulk || applyNow || deltas === null;

    // The batch leaves the queue now; the state below describes the store once it commits.
    const txCount = toWrite.reduce((n, b) => n + b.transactions.length, 0);
    this.written = checkpoint;
    if (last) this.lastWrittenTs = last.timestamp;
    this.deferred = applyNow ? null : deltas;
    this.queue = this.queue.slice(toWrite.length);
    this.queuedTxs -= txCount;
    this.queuedLetters = this.queuedLetters.filter((letter) => !letters.includes(letter));
    this.queuedReorgs = [];
    this.inflightBlocks = toWrite;
    if (clearsStall) this.stalled = null;

    const inflight = store
      .transaction('ingest.batch', async (tx) => {
        if (toWrite.length > 0) await writeRawRows(tx, rows);
        let closedDays: string[] = [];
        if (applyNow && deltas) {
          await applyRollups(tx, deltas, { filled: this.filledRollups });
          if (!bulk) closedDays = await closeCompletedDays(tx, chain, deltas);
        }
        await writeDeadLetters(tx, this.source.name, letters, stamp);
        for (const reorg of reorgs) await recordReorg(tx, chain, reorg, stamp);
        this.pendingEvents.add(writeEvents(reorgs, toWrite, closedDays));
        if (logsEvents) {
          const { events, dropped } = this.pendingEvents.take();
          await appendEvents(tx, chain, events, this.options.eventsKept ?? EVENTS_KEPT, dropped);
        }
        if (checkpoint) await writeCheckpoint(tx, chain, this.source.name, checkpoint, stamp);
        if (clearsStall) await clearStall(tx, chain);
      })
      .then(async () => {
        // PGlite runs no background checkpointer: without this, a bulk load piles up WAL.
        if (bulk && store.kind === 'pglite' && toWrite.length > 0) await store.exec('ingest.checkpoint_wal', 'CHECKPOINT');
        if (clearsStall) this.log?.info({ chain, height: last!.height }, 'the chain advances again past its stall');
        this.inflightBlocks = [];
        this.progress.blocks += toWrite.length;
        this.progress.transactions += txCount;
        this.progress.deadLetters += letters.length;
        this.progress.reorgs += reorgs.length;
        if (last) this.progress.height = last.height;
        this.options.onProgress?.({ ...this.progress });
      });
    this.inflight = inflight;
    // A failure surfaces at the next settle(); until then keep it from being reported as unhandled.
    inflight.catch(() => {});
    if (final) await this.settle();
  }

  private async previousTs(height: number): Promise<number | null> {
    if (this.lastWrittenTs !== null) return this.lastWrittenTs;
    const [row] = await this.store.query<{ ts: number }>('ingest.previous_ts', sql`SELECT ts FROM blocks WHERE chain = ${this.chain} AND height = ${height - 1}`);
    return row?.ts ?? null;
  }

  /**
   * Indexing from above genesis: the addresses of `blocks` never seen before (no summary, no
   * opening) get their balance at the block below the chain's first stored one as an opening
   * balance, recorded in the block where each first appears and added to `deltas`.
   */
  private async seedOpenings(blocks: CanonicalBlock[], deltas: RollupDeltas): Promise<void> {
    const { store, chain, source } = this;
    if (!source.openingBalances) return;
    // The chain's first stored height, read once: nothing is ever written below it afterwards.
    if (this.openingsStart === null) {
      const [first] = await store.query<{ height: number }>('ingest.openings.first', sql`SELECT height FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1`);
      this.openingsStart = first ? Number(first.height) : blocks[0]!.height;
    }
    const start = this.openingsStart;
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

  // ---- follow --------------------------------------------------------------------------------

  /** At the source's head: everything queued is written (and the completed days closed with it). */
  private async follow(): Promise<void> {
    await this.write(true);
  }

  // ---- recover -------------------------------------------------------------------------------

  /** Finds where `block`'s branch meets ours, rolls back to it and fetches the branch up to `block`. */
  private async recover(block: CanonicalBlock): Promise<void> {
    const { chain, source } = this;
    const limit = this.options.maxReorgDepth ?? Infinity;
    const tipHeight = this.tip!.height;
    const tooDeep = (ancestor: number) => this.stall(ancestor + 1, `a reorg deeper than the limit of ${limit} blocks: ${source.name}'s chain leaves the indexed one below height ${ancestor + 1} (indexed tip ${tipHeight})`, null);
    let ancestor = block.height - 1;
    if ((await this.hashAtHeight(ancestor)) !== block.parentHash) {
      if (!source.hashAt) throw new IngestError(`${chain} block ${block.height} does not extend the indexed chain and ${source.name} cannot tell where it forked`);
      ancestor--;
      for (; ancestor >= 0; ancestor--) {
        if (tipHeight - ancestor > limit) return tooDeep(ancestor);
        const [ours, theirs] = await Promise.all([this.hashAtHeight(ancestor), source.hashAt(ancestor)]);
        if (ours !== undefined && ours === theirs) break;
      }
      if (ancestor < 0) return this.stall(0, `${source.name} shares no block with the indexed chain, not even the genesis block: is it a node of another network?`, null);
    }
    if (tipHeight - ancestor > limit) return tooDeep(ancestor);
    const finalized = await source.finalizedHeight?.();
    if (finalized != null && ancestor < finalized && this.written !== null && this.written.height > ancestor) {
      return this.stall(ancestor + 1, `${source.name} reorganised below its own finalized block ${finalized} (common ancestor ${ancestor}): finalized history is not rewritten`, null);
    }
    const branch: CanonicalBlock[] = [];
    for (let height = ancestor + 1; height < block.height; height++) {
      const item = await source.blockAt?.(height);
      if (!item || item.kind === 'caught-up') throw new IngestError(`${chain}: ${source.name} could not give block ${height} of the new branch`);
      branch.push(item.kind === 'block' ? item.block : await this.refetch(item));
    }
    await this.rollBackTo(ancestor, branch[0] ?? block, block);
    for (const b of [...branch, block]) this.accept(b);
  }

  /** Makes `ancestor` the tip: drops queued blocks above it and rolls the store back if needed. */
  private async rollBackTo(ancestor: number, newBranchFirst: CanonicalBlock, newTip: CanonicalBlock): Promise<void> {
    const { chain } = this;
    await this.settle();
    const oldTip = this.tip!.height;
    const prevHash = (await this.hashAtHeight(ancestor + 1)) ?? '';
    const reorg: Reorg = {
      height: ancestor + 1,
      prevHash,
      newHash: newBranchFirst.hash,
      depth: oldTip - ancestor,
      oldTip: { ...this.tip! },
      newTip: { height: newTip.height, hash: newTip.hash },
    };
    const reachesStore = this.written !== null && this.written.height > ancestor;
    // Reorgs settled in memory are routine in a bulk load; rolling back the store is news.
    if (reachesStore) this.log?.warn({ chain, ...reorg }, 'reorg: rolling back to the common ancestor');
    else this.log?.debug({ chain, ...reorg }, 'reorg: dropping queued blocks above the common ancestor');
    this.queue = this.queue.filter((block) => block.height <= ancestor);
    this.queuedTxs = this.queue.reduce((n, b) => n + b.transactions.length, 0);
    if (reachesStore) {
      // The rollups must hold every written block before some of them are subtracted.
      if (this.deferred) await this.write(true);
      await rewindTo(this.store, chain, this.source.name, ancestor, this.written!.height, {
        reorg,
        chunkBlocks: this.options.rollbackChunkBlocks,
        now: this.now,
        onChunk: (checkpoint) => (this.written = checkpoint),
      });
      this.lastWrittenTs = null;
      this.progress.height = ancestor;
      this.progress.reorgs++;
    } else {
      this.queuedReorgs.push(reorg);
    }
    this.tip = { height: ancestor, hash: (await this.hashAtHeight(ancestor)) ?? '' };
  }

  // ---- stall ---------------------------------------------------------------------------------

  /** Writes what is queued below `height`, records and logs why the chain cannot go on, and ends the run. */
  private async stall(height: number, reason: string, payload: unknown): Promise<never> {
    const { chain } = this;
    this.queue = this.queue.filter((block) => block.height < height);
    this.queuedTxs = this.queue.reduce((n, b) => n + b.transactions.length, 0);
    await this.write(true);
    const stall: Stall = { chain, source: this.source.name, height, reason, sinceTs: this.now() };
    await recordStall(this.store, stall);
    this.stalled = stall;
    const error = new ChainStalledError(stall);
    this.log?.error({ chain, height, reason, payload: payload === null ? undefined : payload, hint: error.hint }, `${chain} stalled at height ${height}`);
    throw error;
  }
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
