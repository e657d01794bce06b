/**
 * The write step: a batch taken from the queue (queue.ts), its rollups (rollups.ts), and one
 * transaction that stores the raw rows, applies the rollups and closes the days they complete,
 * records the dead letters and the reorgs settled in memory, logs the events and moves the
 * checkpoint. The transaction is left in flight while the run reads and prepares the next batch;
 * the next write, and whatever reads the store's tip or rolls it back, settles it first. Failure
 * policy: none here. A failed write ends the run (its transaction rolls back), and the indexer's
 * supervisor (indexer.ts) waits for the store and starts a new run from the checkpoint.
 */
import type { CanonicalBlock } from '../../chain/model.ts';
import type { Db } from '../../store/store.ts';
import { writeCheckpoint, type StoredCheckpoint } from '../checkpoint.ts';
import { appendEvents, writeEvents } from '../events.ts';
import { writeDeadLetters, writeRawRows } from '../raw-store.ts';
import { recordReorg } from '../rewind.ts';
import { addBlockRows, emptyRows, type RawRows } from '../rows.ts';
import { clearStall } from '../stalls.ts';
import type { RunContext } from './context.ts';
import { isEmpty, takeBatch, type Batch } from './queue.ts';
import { applyBatchRollups, gatherRollups, type BatchRollups } from './rollups.ts';
import { settle, type InFlight, type Known, type Owed, type RunState } from './state.ts';

/** Everything one write transaction does, decided before it starts. */
export interface PreparedWrite {
  batch: Batch;
  rows: RawRows;
  rollups: BatchRollups;
  /** The checkpoint it writes (null: none, the store holds no block and gets none). */
  checkpoint: StoredCheckpoint | null;
  /** It writes past the recorded stall, which it deletes. */
  clearsStall: boolean;
  /** It logs the events owed with its own; a bulk batch whose rollups wait leaves them owed. */
  logsEvents: boolean;
  /** The time recorded with its dead letters, reorgs and checkpoint. */
  stamp: number;
}

/**
 * Writes the queued blocks: all of them when `final` (the source's end or head, a rollback, a
 * stall), else all but the held-back ones. Returns once the write is in flight, or, when `final`,
 * once it committed.
 */
export async function write(ctx: RunContext, state: RunState, final: boolean): Promise<void> {
  await settle(state);
  const batch = takeBatch(state.queue, final ? 0 : ctx.holdback, final);
  if (isEmpty(batch) && !(final && state.owed.deltas)) return;
  const prepared = await prepareWrite(ctx, state, batch, final);
  // The state describes the store once this write commits.
  const last = batch.blocks.at(-1);
  state.written.checkpoint = prepared.checkpoint;
  if (last) state.written.tipTs = last.timestamp;
  if (prepared.clearsStall) state.written.stall = null;
  state.owed.deltas = prepared.rollups.applyNow ? null : prepared.rollups.deltas;
  state.inflight = startWrite(ctx, state, prepared);
  if (final) await settle(state);
}

/** The rows, rollups and checkpoint of `batch`, on the store as `state.written` describes it. */
export async function prepareWrite(ctx: RunContext, state: RunState, batch: Batch, final: boolean): Promise<PreparedWrite> {
  const stamp = ctx.now();
  const rollups = await gatherRollups(ctx, batch, state.owed.deltas, state.written.tipTs, state.known, final);
  // After the rollups: they may add opening balances to the blocks.
  const rows = emptyRows();
  for (const block of batch.blocks) addBlockRows(rows, block);
  const last = batch.blocks.at(-1);
  const stall = state.written.stall;
  return {
    batch,
    rows,
    rollups,
    checkpoint: nextCheckpoint(state.written.checkpoint, last, rollups.applyNow),
    clearsStall: stall !== null && last !== undefined && last.height >= stall.height,
    // Blocks whose rollups wait (a bulk load's batches) are announced with the step that applies them.
    logsEvents: !ctx.bulk || rollups.applyNow || rollups.deltas === null,
    stamp,
  };
}

/** The checkpoint after a write whose last block is `last` (if any), with the rollups applied or not. */
export function nextCheckpoint(previous: StoredCheckpoint | null, last: CanonicalBlock | undefined, applyNow: boolean): StoredCheckpoint | null {
  if (last) return { height: last.height, hash: last.hash, rollupsHeight: applyNow ? last.height : (previous?.rollupsHeight ?? -1) };
  return previous && { ...previous, rollupsHeight: applyNow ? previous.height : previous.rollupsHeight };
}

/** Starts the write's transaction; once it commits, reports its progress. */
function startWrite(ctx: RunContext, state: RunState, prepared: PreparedWrite): InFlight {
  const { store, chain, bulk } = ctx;
  const { batch, clearsStall } = prepared;
  const last = batch.blocks.at(-1);
  const flight: InFlight = {
    blocks: batch.blocks,
    done: store
      .transaction('ingest.batch', (tx) => commitBatch(tx, ctx, prepared, state.owed, state.known))
      .then(async () => {
        // PGlite runs no background checkpointer: without this, a bulk load piles up WAL.
        if (bulk && store.kind === 'pglite' && batch.blocks.length > 0) await store.exec('ingest.checkpoint_wal', 'CHECKPOINT');
        if (clearsStall) ctx.log?.info({ chain, height: last!.height }, 'the chain advances again past its stall');
        flight.blocks = [];
        const { progress } = state;
        progress.blocks += batch.blocks.length;
        progress.transactions += batch.txCount;
        progress.deadLetters += batch.letters.length;
        progress.reorgs += batch.reorgs.length;
        if (last) progress.height = last.height;
        ctx.onProgress?.({ ...progress });
      }),
  };
  // A failure surfaces at the next settle(); until then keep it from being reported as unhandled.
  flight.done.catch(() => {});
  return flight;
}

/**
 * The write's transaction, in this order: raw rows, rollups (and the days they close), dead
 * letters, reorgs, events, checkpoint, the stall cleared. The events step takes what the rollups
 * closed: the batch's events join those owed, and are logged unless the rollups still wait.
 */
export async function commitBatch(tx: Db, ctx: RunContext, prepared: PreparedWrite, owed: Owed, known: Known): Promise<void> {
  const { chain, source } = ctx;
  const { batch, rollups, checkpoint, stamp } = prepared;
  if (batch.blocks.length > 0) await writeRawRows(tx, prepared.rows);
  const closedDays = rollups.applyNow && rollups.deltas ? await applyBatchRollups(tx, ctx, rollups.deltas, known) : [];
  await writeDeadLetters(tx, source.name, batch.letters, stamp);
  for (const reorg of batch.reorgs) await recordReorg(tx, chain, reorg, stamp);
  owed.events.add(writeEvents(batch.reorgs, batch.blocks, closedDays));
  if (prepared.logsEvents) {
    const { events, dropped } = owed.events.take();
    await appendEvents(tx, chain, events, ctx.eventsKept, dropped);
  }
  if (checkpoint) await writeCheckpoint(tx, chain, source.name, checkpoint, stamp);
  if (prepared.clearsStall) await clearStall(tx, chain);
}
