/**
 * Reading the chain event log (`chain_events`, src/ingest/events.ts) for the open streams of one
 * API process: one poller per chain, whatever the number of streams, that reads the events after
 * the last one it read every `pollMs` while at least one stream of the chain is open, and hands
 * each event to every stream of the chain. With no stream open it stops, and the next stream
 * starts it again from the newest event. The log is in the database, so every API process (and a
 * process on a read replica) streams the same events with the same ids.
 */
import sql from 'sql-template-tag';
import type { FastifyBaseLogger } from 'fastify';
import type { ChainId } from '../../../chain/chains.ts';
import type { ChainEventKind } from '../../../ingest/events.ts';
import { StoreUnavailableError } from '../../../store/errors.ts';
import type { Store } from '../../../store/store.ts';

/** An event as stored: its id in the chain's log, its kind, its facts. */
export interface StoredEvent {
  id: number;
  kind: ChainEventKind;
  data: Record<string, unknown>;
}

export type EventListener = (event: StoredEvent) => void;

export interface EventHub {
  /**
   * Hands `listener` every event of `chain` the process reads from now on. Resolves once the
   * chain's poller holds its position: every event read after that (by the stream itself, say)
   * is at most one the poller hands on too, or has already been handed on. Returns the unsubscribe.
   */
  subscribe(chain: ChainId, listener: EventListener): Promise<() => void>;
  /** Stops every poller (the app closes). */
  close(): void;
}

/** Events read per statement: a poller that reads a full page reads again at once. */
export const EVENTS_PAGE = 500;

/** The events of `chain` after id `after`, oldest first; `label` names the reader (a poller, a stream's replay). */
export async function readEvents(store: Store, label: string, chain: ChainId, after: number, limit = EVENTS_PAGE): Promise<StoredEvent[]> {
  const rows = await store.query<{ id: number | string; kind: ChainEventKind; data: Record<string, unknown> | string }>(
    label,
    sql`SELECT id, kind, data FROM chain_events WHERE chain = ${chain} AND id > ${after} ORDER BY id LIMIT ${limit}`,
    { reusePlan: true }, // a range of the primary key
  );
  return rows.map((row) => ({ id: Number(row.id), kind: row.kind, data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data }));
}

/** The oldest and newest ids in `chain`'s log (null when it holds none). */
export async function eventBounds(store: Store, chain: ChainId): Promise<{ oldest: number | null; newest: number | null }> {
  const [row] = await store.query<{ oldest: number | string | null; newest: number | string | null }>(
    'api.events.bounds',
    sql`SELECT min(id) AS oldest, max(id) AS newest FROM chain_events WHERE chain = ${chain}`,
    { reusePlan: true }, // both ends of the primary key's range
  );
  return { oldest: row?.oldest == null ? null : Number(row.oldest), newest: row?.newest == null ? null : Number(row.newest) };
}

export function createEventHub(store: Store, options: { pollMs: number; log: FastifyBaseLogger; outage?: { report(): void } }): EventHub {
  const pollers = new Map<ChainId, ChainPoller>();
  let closed = false;
  const poller = (chain: ChainId) => {
    let found = pollers.get(chain);
    if (!found) pollers.set(chain, (found = new ChainPoller(chain, store, options, () => closed)));
    return found;
  };
  return {
    async subscribe(chain, listener) {
      if (closed) throw new Error('the event hub is closed');
      return poller(chain).add(listener);
    },
    close() {
      closed = true;
      for (const p of pollers.values()) p.stop();
    },
  };
}

class ChainPoller {
  private readonly listeners = new Set<EventListener>();
  /** The last id read; null while stopped. */
  private last: number | null = null;
  private starting: Promise<void> | null = null;
  private running = false;
  private wake: (() => void) | null = null;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly chain: ChainId,
    private readonly store: Store,
    private readonly options: { pollMs: number; log: FastifyBaseLogger; outage?: { report(): void } },
    private readonly closed: () => boolean,
  ) {}

  async add(listener: EventListener): Promise<() => void> {
    this.listeners.add(listener);
    const unsubscribe = () => {
      this.listeners.delete(listener);
    };
    try {
      if (this.last === null) {
        this.starting ??= this.start().finally(() => (this.starting = null));
        await this.starting;
      }
    } catch (error) {
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  /** Takes the newest event as the position and starts polling after it. */
  private async start(): Promise<void> {
    const { newest } = await eventBounds(this.store, this.chain);
    this.last = newest ?? 0;
    if (!this.running) {
      this.running = true;
      void this.run();
    }
  }

  private async run(): Promise<void> {
    while (!this.closed() && this.listeners.size > 0) {
      let events: StoredEvent[] = [];
      try {
        events = await readEvents(this.store, 'api.events.poll', this.chain, this.last!);
      } catch (error) {
        // The streams stay open (their heartbeats go on); reading resumes when the store answers.
        if (error instanceof StoreUnavailableError) this.options.outage?.report();
        this.options.log.warn({ chain: this.chain, err: error instanceof Error ? error.message : String(error) }, 'reading chain events failed');
      }
      for (const event of events) {
        this.last = event.id;
        for (const listener of [...this.listeners]) listener(event);
      }
      if (events.length < EVENTS_PAGE) await this.sleep();
    }
    // Checked and cleared in one turn: a stream added from here on starts the poller anew.
    this.running = false;
    this.last = null;
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, this.options.pollMs);
    });
  }

  stop(): void {
    clearTimeout(this.timer);
    this.wake?.();
    this.listeners.clear();
  }
}
