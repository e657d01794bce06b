/**
 * GET /api/v1/{chain}/events: the chain's live events as Server-Sent Events (docs/events.md).
 *
 * A stream subscribes to the process's poller of its chain (hub.ts) first, then reads what it
 * must replay from the log itself: the events after the client's Last-Event-ID, or none (it starts
 * at the newest event). Events the poller hands on meanwhile wait, and anything already sent is
 * skipped by id, so the replay and the live events meet without a hole or a repeat. Ids count a
 * chain's events without holes, so a jump in ids means events were pruned before this stream
 * could send them: it says so with a `gap` message.
 *
 * The stream is a plain body the plugins leave alone: not compressed (the route opts out; a
 * compressor holds back what it has not filled a block with), no ETag (only whole bodies get one),
 * `Cache-Control: no-store` (set here, so the caching plugin keeps it), not in the snapshot cache
 * (the route does not opt in). `Connection: close`: once a stream ends its connection goes too, so
 * that closing the app, which ends every stream first, is not held by idle keep-alive connections.
 */
import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger } from 'fastify';
import { Type } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { Store } from '../../../store/store.ts';
import type { ApiContext } from '../../context.ts';
import { ApiError } from '../../problem.ts';
import { ChainPathParams, STANDARD_ERRORS } from '../../schemas/common.ts';
import { createEventHub, eventBounds, EVENTS_PAGE, readEvents, type EventHub, type StoredEvent } from './hub.ts';
import { eventMessage, gapMessage, HEARTBEAT } from './messages.ts';

/** A stream whose client reads slower than events come (its unsent bytes pass this) is ended; it resumes with Last-Event-ID. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** Ids fit a JavaScript number exactly (and the log would take ages to count this far). */
const EVENT_ID_PATTERN = '^[0-9]{1,15}$';

const EventsQuery = Type.Object({
  last_event_id: Type.Optional(
    Type.String({ pattern: EVENT_ID_PATTERN, description: 'Resume after this event id, for clients that cannot send the Last-Event-ID header (the header wins when both are sent).' }),
  ),
});

const EventsHeaders = Type.Object({
  'last-event-id': Type.Optional(Type.String({ pattern: EVENT_ID_PATTERN, description: 'Resume after this event id: the `id:` of the last message received.' })),
});

const STREAM_DESCRIPTION = [
  'A text/event-stream of the chain’s events, each message with `id:` (the event id), `event:` (the kind) and `data:` (one line of JSON):',
  '',
  '- `block`: a new canonical block: `{chain, height, hash, timestamp, tx_count}`, `timestamp` the block’s time (YYYY-MM-DDTHH:MM:SS, UTC);',
  '- `reorg`: the chain reorganised: `{chain, depth, ancestor_height, old_tip: {height, hash}, new_tip: {height, hash}}`; blocks above `ancestor_height` were replaced, and the new branch’s blocks follow as `block` events;',
  '- `day`: a UTC day closed (its daily figures are final): `{chain, day}`;',
  '- `gap`: events `missed_from`..`missed_to` will not be delivered (older than the kept window): `{chain, missed_from, missed_to}`; refetch what you show.',
  '',
  'Comment lines `: heartbeat` keep the connection alive. Without Last-Event-ID the stream starts after the newest event (no replay).',
  'Browsers: EventSource cannot send the Authorization header; read the stream with fetch() (docs/events.md).',
].join('\n');

const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Type.Ref('Problem') } } });

interface StreamLimits {
  heartbeatMs: number;
  maxStreamsPerKey: number;
}

/** The open streams of the process: counted per key, and ended together when the app closes. */
class OpenStreams {
  private readonly all = new Set<EventStream>();
  private readonly perKey = new Map<string, number>();

  constructor(private readonly maxPerKey: number) {}

  /** Takes a slot for `key`; false when it holds the most streams it may. */
  reserve(key: string): boolean {
    const held = this.perKey.get(key) ?? 0;
    if (held >= this.maxPerKey) return false;
    this.perKey.set(key, held + 1);
    return true;
  }

  release(key: string): void {
    const held = (this.perKey.get(key) ?? 1) - 1;
    if (held <= 0) this.perKey.delete(key);
    else this.perKey.set(key, held);
  }

  add(stream: EventStream): void {
    this.all.add(stream);
  }

  remove(stream: EventStream): void {
    this.all.delete(stream);
  }

  endAll(): void {
    for (const stream of [...this.all]) stream.close();
  }
}

/** One client's stream: its body, its position (the last id sent) and its heartbeat. */
class EventStream {
  readonly body = new PassThrough();
  /** Events the poller handed on while the replay ran; null once the stream is live. */
  private waiting: StoredEvent[] | null = [];
  private readonly heartbeat: NodeJS.Timeout;
  private unsubscribe: (() => void) | null = null;
  private closed = false;

  constructor(
    private readonly chain: ChainId,
    /** The last id sent, or where the stream starts. */
    private after: number,
    heartbeatMs: number,
    private readonly log: FastifyBaseLogger,
    private readonly onClose: () => void,
  ) {
    this.heartbeat = setInterval(() => this.write(HEARTBEAT), heartbeatMs);
    this.body.on('close', () => this.close());
    // A first line, so that the headers leave at once rather than with the first event.
    this.write(': connected\n\n');
  }

  async subscribe(hub: EventHub): Promise<void> {
    this.unsubscribe = await hub.subscribe(this.chain, (event) => this.deliver(event));
  }

  /** Places the stream: after the newest event, after the client's id, or (its id pruned) after a gap to the newest. */
  place(lastEventId: number | null, bounds: { oldest: number | null; newest: number | null }): void {
    const newest = bounds.newest ?? 0;
    if (lastEventId === null) {
      this.after = newest;
    } else if (bounds.oldest !== null && lastEventId < bounds.oldest - 1) {
      // The client must refetch anyway: what the window still holds would only be replayed to be thrown away.
      this.write(gapMessage(this.chain, lastEventId + 1, newest));
      this.after = newest;
    } else {
      this.after = lastEventId;
    }
  }

  /** Sends the events after the stream's position that the log holds now, then those the poller handed on meanwhile. */
  async replay(store: Store): Promise<void> {
    try {
      for (;;) {
        const events = await readEvents(store, 'api.events.replay', this.chain, this.after);
        for (const event of events) this.send(event);
        if (events.length < EVENTS_PAGE || this.closed) break;
      }
    } catch (error) {
      this.log.warn({ chain: this.chain, err: error instanceof Error ? error.message : String(error) }, 'event stream replay failed: closing the stream');
      this.close();
      return;
    }
    const waiting = this.waiting ?? [];
    this.waiting = null;
    for (const event of waiting) this.send(event);
  }

  private deliver(event: StoredEvent): void {
    if (this.waiting) this.waiting.push(event);
    else this.send(event);
  }

  private send(event: StoredEvent): void {
    if (event.id <= this.after) return;
    if (event.id > this.after + 1) this.write(gapMessage(this.chain, this.after + 1, event.id - 1));
    this.after = event.id;
    this.write(eventMessage(this.chain, event));
  }

  write(text: string): void {
    if (this.closed) return;
    if (this.body.writableLength + this.body.readableLength > MAX_BUFFERED_BYTES) {
      this.log.warn({ chain: this.chain, after: this.after }, 'event stream client reads too slowly: closing the stream');
      this.close();
      return;
    }
    this.body.write(text);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.unsubscribe?.();
    this.body.end();
    this.onClose();
  }
}

/** The id to resume after: the Last-Event-ID header, else the `last_event_id` parameter (both validated by the schema). */
function resumeId(header: string | undefined, query: string | undefined): number | null {
  const raw = header ?? query;
  return raw === undefined || raw === '' ? null : Number(raw);
}

export function eventRoutes(ctx: ApiContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const limits: StreamLimits = ctx.config.events;
    const hub = createEventHub(ctx.store, { pollMs: ctx.config.events.pollMs, log: app.log, outage: ctx.storeOutage });
    const open = new OpenStreams(limits.maxStreamsPerKey);
    // Before the server waits for the requests in flight: an open stream would hold it forever.
    app.addHook('preClose', async () => {
      hub.close();
      open.endAll();
    });

    app.get(
      '/:chain/events',
      {
        compress: false,
        // A stream lives as long as its client: no request deadline on its statements (plugins/deadline.ts).
        config: { deadline: false },
        schema: {
          tags: ['events'],
          operationId: 'streamChainEvents',
          summary: 'Live events of a chain: new blocks, reorganisations, closed days (Server-Sent Events)',
          description: STREAM_DESCRIPTION,
          params: ChainPathParams,
          querystring: EventsQuery,
          headers: EventsHeaders,
          response: {
            200: {
              description: 'The event stream; it stays open until the client or the server closes it.',
              content: { 'text/event-stream': { schema: Type.String({ description: STREAM_DESCRIPTION }) } },
            },
            ...STANDARD_ERRORS,
            400: problem('A malformed Last-Event-ID header or last_event_id parameter; errors names it.'),
            429: problem('The key exceeded its rate limit, or holds the most event streams it may (QUARRY_EVENTS_MAX_STREAMS); Retry-After says when to retry.'),
          },
        },
      },
      async (request, reply) => {
        const { chain } = request.params;
        const lastEventId = resumeId(request.headers['last-event-id'], request.query.last_event_id);
        const sseHeaders = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', connection: 'close', 'x-accel-buffering': 'no' };
        if (request.method === 'HEAD') return reply.headers(sseHeaders).send();

        const key = request.apiKeyHash!;
        if (!open.reserve(key)) {
          throw new ApiError(429, `this API key holds ${limits.maxStreamsPerKey} open event streams, the most it may; close one first`, undefined, { 'retry-after': '5' });
        }
        let released = false;
        const release = () => {
          if (released) return;
          released = true;
          open.release(key);
          open.remove(stream);
        };
        const stream = new EventStream(chain, 0, limits.heartbeatMs, request.log, release);
        open.add(stream);
        try {
          await stream.subscribe(hub);
          stream.place(lastEventId, await eventBounds(ctx.store, chain));
        } catch (error) {
          stream.close();
          throw error;
        }
        reply.raw.on('close', () => stream.close());
        // A client gone while the stream was placed: its close event has passed.
        if (request.raw.destroyed) stream.close();
        void stream.replay(ctx.store);
        return reply.headers(sseHeaders).send(stream.body);
      },
    );
  };
}
