/**
 * The chain event log (`chain_events`, docs/events.md): what GET /api/v1/{chain}/events streams.
 * Ingest appends the events of a write in the transaction that applies what they report (a
 * batch's blocks with their rollups, its reorgs and closed days; a rollback's reorg; a bulk load's
 * closed days), with one statement, so a reader never sees an event before its facts, nor facts
 * without their event. A bulk load applies the rollups of many batches in one step: the events of
 * those batches wait in memory (`PendingEvents`) and go with that step.
 *
 * Ids count a chain's events without holes: the statement numbers its events from the newest id
 * + 1 (one writer per chain; a second writer in the same chain would collide on the key and fail
 * its transaction, not interleave). Only the newest `kept` events of a chain stay, pruned by the
 * same statement. Events that the statement would prune at once (a bulk step of more blocks than
 * are kept) take their ids but are never written: no reader could have seen them, so the log reads
 * exactly as if they had been written and pruned. A rollback deletes no event: the log says what
 * happened, the reorg included.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { CanonicalBlock } from '../chain/model.ts';
import type { Db } from '../store/store.ts';
import { formatDay } from '../time.ts';
import type { Reorg } from './rewind.ts';

/** Events kept per chain: the window a client can resume in after a disconnection. */
export const EVENTS_KEPT = 10_000;

/** What an event records, as stored in `chain_events.data` (times in Unix seconds). */
export type ChainEvent =
  | { kind: 'block'; data: BlockEventData }
  | { kind: 'reorg'; data: ReorgEventData }
  | { kind: 'day'; data: DayEventData };

export type ChainEventKind = ChainEvent['kind'];

export interface BlockEventData {
  height: number;
  hash: string;
  ts: number;
  tx_count: number;
}

export interface ReorgEventData {
  /** Blocks replaced: the old tip's height minus the common ancestor's. */
  depth: number;
  /** The highest block both branches share; everything above it was replaced. */
  ancestor_height: number;
  old_tip_height: number;
  old_tip_hash: string;
  new_tip_height: number;
  new_tip_hash: string;
}

export interface DayEventData {
  /** The closed UTC day, `YYYY-MM-DD`. */
  day: string;
}

export function blockEvent(block: CanonicalBlock): ChainEvent {
  return { kind: 'block', data: { height: block.height, hash: block.hash, ts: block.timestamp, tx_count: block.transactions.length } };
}

export function reorgEvent(reorg: Reorg): ChainEvent {
  const ancestor = reorg.height - 1;
  return {
    kind: 'reorg',
    data: {
      depth: reorg.depth,
      ancestor_height: ancestor,
      old_tip_height: reorg.oldTip.height,
      old_tip_hash: reorg.oldTip.hash,
      new_tip_height: reorg.newTip.height,
      new_tip_hash: reorg.newTip.hash,
    },
  };
}

export function dayEvent(day: string): ChainEvent {
  return { kind: 'day', data: { day } };
}

/**
 * The events of a write in the order they happened: the reorgs first (they made room for the
 * blocks), then the blocks, each closed day just before the first block of a later day (a block
 * of the next day is what closes a day; days a reorg reopened close again ahead of every block).
 */
export function writeEvents(reorgs: readonly Reorg[], blocks: readonly CanonicalBlock[], closedDays: readonly string[]): ChainEvent[] {
  const events = reorgs.map(reorgEvent);
  let next = 0;
  for (const block of blocks) {
    const day = formatDay(block.timestamp);
    for (; next < closedDays.length && closedDays[next]! < day; next++) events.push(dayEvent(closedDays[next]!));
    events.push(blockEvent(block));
  }
  for (; next < closedDays.length; next++) events.push(dayEvent(closedDays[next]!));
  return events;
}

/**
 * The events of writes whose rollups a bulk load has not applied yet: the newest `kept` of them,
 * and how many older ones were let go (they are numbered when the rest is appended).
 */
export class PendingEvents {
  private events: ChainEvent[] = [];
  private dropped = 0;

  constructor(private readonly kept: number) {}

  add(events: readonly ChainEvent[]): void {
    for (const event of events) this.events.push(event);
    const extra = this.events.length - this.kept;
    if (extra > 0) {
      this.events = this.events.slice(extra);
      this.dropped += extra;
    }
  }

  /** Everything pending, to append now; empties the queue. */
  take(): { events: ChainEvent[]; dropped: number } {
    const taken = { events: this.events, dropped: this.dropped };
    this.events = [];
    this.dropped = 0;
    return taken;
  }
}

/**
 * Appends `events` to `chain`'s log and prunes it to the newest `kept`, in one statement.
 * `dropped`: events older than these that are numbered but not written (see the file's comment).
 */
export async function appendEvents(db: Db, chain: ChainId, events: readonly ChainEvent[], kept = EVENTS_KEPT, dropped = 0): Promise<void> {
  if (events.length === 0) return;
  // Those the prune below would remove at once are numbered but not written.
  const skipped = dropped + Math.max(0, events.length - kept);
  const written = events.slice(Math.max(0, events.length - kept));
  const total = dropped + events.length;
  const kinds = written.map((event) => event.kind);
  const data = written.map((event) => JSON.stringify(event.data));
  await db.query(
    'ingest.events.append',
    sql`WITH newest AS (SELECT coalesce(max(id), 0) AS id FROM chain_events WHERE chain = ${chain}),
         added AS (
           INSERT INTO chain_events (chain, id, kind, data)
           SELECT ${chain}, newest.id + ${skipped}::bigint + e.n, e.kind, e.data::jsonb
           FROM newest, unnest(${kinds}::text[], ${data}::text[]) WITH ORDINALITY AS e(kind, data, n)
         )
        DELETE FROM chain_events
        WHERE chain = ${chain} AND id <= (SELECT id FROM newest) + ${total}::bigint - ${kept}::bigint`,
  );
}
