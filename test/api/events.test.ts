/**
 * GET /api/v1/{chain}/events: blocks ingested through the real pipeline during the test reach the
 * streams of two API processes (on PostgreSQL two `quarry serve` child processes on one database;
 * on the embedded store, which one process owns, two apps with pollers of their own), listening on
 * real ports and read with fetch and a small SSE parser. Expected values come from the blocks the
 * test built.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sql from 'sql-template-tag';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { beginBulkLoad } from '../../src/ingest/bulk.ts';
import { ingest, type IngestOptions } from '../../src/ingest/pipeline.ts';
import type { Store } from '../../src/store/store.ts';
import { AUTH, buildTestApp, TEST_KEY, type TestApp } from '../support/app.ts';
import { quarryArgs } from '../support/quarry-command.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { randomChain } from '../support/random-chain.ts';
import { describeEachStore, openTestStore, storeKinds } from '../support/stores.ts';
import { utcDay } from '../support/utc-day.ts';

const root = path.resolve(import.meta.dirname, '../..');
const POLL_MS = 50;
const SECOND_KEY = 'second-key-0123456789abcdef';

// ---- a small SSE reader over fetch ------------------------------------------------------------

interface SseMessage {
  id: string | null;
  event: string;
  data: any;
}

const timeout = <T>(ms: number, value: T) => {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(value), ms)));
  return { promise, cancel: () => clearTimeout(timer) };
};

class SseStream {
  readonly comments: string[] = [];
  private readonly messages: SseMessage[] = [];
  private buffer = '';
  private ended = false;
  private pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']> | null = null;
  private readonly decoder = new TextDecoder();

  private constructor(
    readonly response: Response,
    private readonly reader: ReadableStreamDefaultReader<Uint8Array>,
    private readonly controller: AbortController,
  ) {}

  /** A stream, or the answer that refused it. */
  static async attempt(base: string, options: { chain?: string; headers?: Record<string, string>; query?: string } = {}): Promise<SseStream | Response> {
    const controller = new AbortController();
    const response = await fetch(`${base}/api/v1/${options.chain ?? 'pos'}/events${options.query ?? ''}`, { headers: options.headers ?? AUTH, signal: controller.signal });
    if (response.status !== 200) return response;
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    return new SseStream(response, response.body!.getReader(), controller);
  }

  static async open(base: string, options: { chain?: string; headers?: Record<string, string>; query?: string } = {}): Promise<SseStream> {
    const stream = await SseStream.attempt(base, options);
    if (stream instanceof SseStream) return stream;
    assert.fail(`the stream does not open: ${stream.status} ${await stream.text()}`);
  }

  /** Reads one chunk, or nothing within `ms`; false on timeout. A read that times out stays pending for the next call. */
  private async pump(ms: number): Promise<boolean> {
    this.pending ??= this.reader.read();
    const wait = timeout(ms, null);
    const result = await Promise.race([this.pending, wait.promise]);
    wait.cancel();
    if (result === null) return false;
    this.pending = null;
    if (result.done) {
      this.ended = true;
      return true;
    }
    this.buffer += this.decoder.decode(result.value, { stream: true });
    for (let end = this.buffer.indexOf('\n\n'); end !== -1; end = this.buffer.indexOf('\n\n')) {
      this.parse(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end + 2);
    }
    return true;
  }

  private parse(block: string): void {
    let id: string | null = null;
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length > 0) this.messages.push({ id, event, data: JSON.parse(data.join('\n')) });
  }

  /** The next message within `ms`, or null. */
  async tryNext(ms: number): Promise<SseMessage | null> {
    const deadline = Date.now() + ms;
    while (this.messages.length === 0 && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0 || !(await this.pump(left))) break;
    }
    return this.messages.shift() ?? null;
  }

  async next(ms = 15_000): Promise<SseMessage> {
    const message = await this.tryNext(ms);
    if (message) return message;
    throw new Error(this.ended ? 'the stream ended' : `no message within ${ms} ms`);
  }

  /** Whether the server ends the stream within `ms` (messages before the end are kept). */
  async endsWithin(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.ended) {
      const left = deadline - Date.now();
      if (left <= 0 || !(await this.pump(left))) return this.ended;
    }
    return true;
  }

  /** Reads until a comment `text` arrives; false if none within `ms`. */
  async comment(text: string, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.comments.includes(text) && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0 || !(await this.pump(left))) break;
    }
    return this.comments.includes(text);
  }

  close(): void {
    this.controller.abort();
    this.reader.cancel().catch(() => {});
  }
}

// ---- API processes ----------------------------------------------------------------------------

interface ApiProcess {
  url: string;
  close(): Promise<void>;
}

async function inProcessApi(store: Store, env: Record<string, string> = {}): Promise<ApiProcess & { t: TestApp }> {
  const t = await buildTestApp(store, { QUARRY_EVENTS_POLL_INTERVAL: `${POLL_MS}ms`, ...env });
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  return { url, t, close: () => t.close() };
}

/** `quarry serve` in a child process (test/support/quarry-command.ts), on a free port. */
async function childApi(databaseUrl: string, dirs: string[]): Promise<ApiProcess & { child: ChildProcess; exited: Promise<number | null> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-events-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, quarryArgs(['serve']), {
    cwd: root,
    env: {
      ...process.env,
      QUARRY_DATABASE_URL: databaseUrl,
      QUARRY_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      QUARRY_API_KEYS: TEST_KEY,
      QUARRY_EVENTS_POLL_INTERVAL: `${POLL_MS}ms`,
      QUARRY_LOG_LEVEL: 'info',
      // One process each: the test is about two API processes, as two `quarry serve`s.
      QUARRY_WORKERS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`quarry serve did not start within 60 s: ${stderr.slice(-2000)}`)), 60_000);
    child.stdout!.on('data', (chunk) => {
      stdout += String(chunk);
      for (const line of stdout.split('\n')) {
        if (!line.includes('quarry is serving')) continue;
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    void exited.then((code) => reject(new Error(`quarry serve exited with ${code}: ${stderr.slice(-2000)}`)));
  });
  return {
    url,
    child,
    exited,
    close: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

// ---- the chain --------------------------------------------------------------------------------

/** 2026-03-01T00:00:00Z; blocks a minute apart, so that only a test that says so crosses a midnight. */
const T0 = Date.UTC(2026, 2, 1) / 1000;
const alice = addr('pos', 'alice');
const bob = addr('pos', 'bob');

const isoTime = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);

function blockData(block: CanonicalBlock) {
  return { chain: 'pos', height: block.height, hash: block.hash, timestamp: isoTime(block.timestamp), tx_count: block.transactions.length };
}

function assertBlock(message: SseMessage, block: CanonicalBlock, txCount: number): void {
  assert.equal(message.event, 'block', `a block event: ${JSON.stringify(message)}`);
  assert.equal(block.transactions.length, txCount);
  assert.deepEqual(message.data, blockData(block));
  assert.match(message.id ?? '', /^[0-9]+$/);
}

async function newestId(store: Store): Promise<number> {
  const [row] = await store.query<{ id: number | null }>('test.events.newest', sql`SELECT max(id) AS id FROM chain_events WHERE chain = 'pos'`);
  return Number(row?.id ?? 0);
}

for (const kind of storeKinds()) {
  describe(`event stream [${kind}]`, () => {
    let store: Store & { url?: string };
    let chain: ChainBuilder;
    let transfers = 0;
    /** Two API processes on the store. */
    const apis: ApiProcess[] = [];
    const dirs: string[] = [];

    /** Appends a block with `txs` transfers (a `gap` of several block times, if given) to the test's chain. */
    const addBlock = (txs: number, gap?: number) =>
      chain.block((b) => {
        for (let i = 0; i < txs; i++) b.transfer(alice, bob, BigInt(++transfers));
      }, { gap });
    const ingestNew = (options: IngestOptions = {}) => ingest(store, chain.source(), options);

    before(async () => {
      store = await openTestStore(kind);
      chain = new ChainBuilder('pos', T0, 60);
      chain.block((b) => b.genesis([{ address: alice, amount: coins('pos', 1000) }]));
      addBlock(1);
      addBlock(2);
      await ingestNew();
      if (kind === 'postgres') {
        apis.push(...(await Promise.all([childApi(store.url!, dirs), childApi(store.url!, dirs)])));
      } else {
        apis.push(await inProcessApi(store), await inProcessApi(store));
      }
    });

    after(async () => {
      await Promise.all(apis.map((api) => api.close()));
      await store?.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it('a block ingested now reaches the streams of both API processes, with the same id; nothing older is replayed', async () => {
      const streams = await Promise.all(apis.map((api) => SseStream.open(api.url)));
      const pow = await SseStream.open(apis[0]!.url, { chain: 'pow' });
      try {
        const block = addBlock(3);
        await ingestNew();
        const messages = await Promise.all(streams.map((stream) => stream.next()));
        for (const message of messages) assertBlock(message, block, 3);
        assert.equal(messages[0]!.id, messages[1]!.id);
        assert.equal(Number(messages[0]!.id), await newestId(store));
        // The other chain's stream hears nothing of it.
        assert.equal(await pow.tryNext(3 * POLL_MS), null);
      } finally {
        for (const stream of [...streams, pow]) stream.close();
      }
    });

    it('a reconnect with Last-Event-ID (header or last_event_id) misses nothing', async () => {
      const first = await SseStream.open(apis[0]!.url);
      const seen = addBlock(1);
      await ingestNew();
      const last = await first.next();
      assertBlock(last, seen, 1);
      first.close();

      // Written while the client is away, one batch each.
      const missed = [addBlock(0), addBlock(2), addBlock(1)];
      await ingestNew({ batchBlocks: 1 });
      const byHeader = await SseStream.open(apis[1]!.url, { headers: { ...AUTH, 'last-event-id': last.id! } });
      const byQuery = await SseStream.open(apis[0]!.url, { query: `?last_event_id=${last.id}` });
      try {
        for (const stream of [byHeader, byQuery]) {
          let id = Number(last.id);
          for (const block of missed) {
            const message = await stream.next();
            assertBlock(message, block, block.transactions.length);
            assert.equal(Number(message.id), ++id, 'ids follow each other');
          }
        }
        // Then live, as any stream.
        const next = addBlock(2);
        await ingestNew();
        for (const stream of [byHeader, byQuery]) assertBlock(await stream.next(), next, 2);
      } finally {
        byHeader.close();
        byQuery.close();
      }
    });

    it('a reorg is a reorg event, followed by the new branch’s blocks', async () => {
      const stream = await SseStream.open(apis[1]!.url);
      try {
        const oldTip = chain.tip!;
        const branch = chain.fork(2, [(b) => void b.transfer(alice, bob, 7n), () => {}, (b) => void b.transfer(bob, alice, 3n)]);
        await ingestNew();
        const reorg = await stream.next();
        assert.equal(reorg.event, 'reorg');
        assert.deepEqual(reorg.data, {
          chain: 'pos',
          depth: 2,
          ancestor_height: oldTip.height - 2,
          old_tip: { height: oldTip.height, hash: oldTip.hash },
          new_tip: { height: branch.at(-1)!.height, hash: branch.at(-1)!.hash },
        });
        for (const block of branch) {
          const message = await stream.next();
          assertBlock(message, block, block.transactions.length);
          assert.equal(Number(message.id), Number(reorg.id) + 1 + branch.indexOf(block));
        }
        // The log keeps the replaced blocks' events: a rollback deletes none.
        const replaced = await store.query<{ n: number }>(
          'test.events.replaced',
          sql`SELECT count(*)::int AS n FROM chain_events WHERE chain = 'pos' AND kind = 'block' AND data->>'hash' = ${oldTip.hash}`,
        );
        assert.equal(replaced[0]!.n, 1);
      } finally {
        stream.close();
      }
    });

    it('the first block of a new UTC day closes the day before: a day event, then the block', async () => {
      const stream = await SseStream.open(apis[0]!.url);
      try {
        const tip = chain.tip!;
        const midnight = (Math.floor(tip.timestamp / 86_400) + 1) * 86_400;
        const block = addBlock(1, Math.ceil((midnight - tip.timestamp) / 60));
        assert.equal(utcDay(block.timestamp), utcDay(midnight));
        await ingestNew();
        const day = await stream.next();
        assert.equal(day.event, 'day');
        assert.deepEqual(day.data, { chain: 'pos', day: utcDay(tip.timestamp) });
        assertBlock(await stream.next(), block, 1);
      } finally {
        stream.close();
      }
    });

    it('an id older than the kept window starts with a gap event; the oldest kept id resumes without one', async () => {
      const before = await newestId(store);
      // Five blocks, one batch each, in a log that keeps three events: ids before+3..before+5 remain.
      const blocks = [addBlock(1), addBlock(1), addBlock(1), addBlock(1), addBlock(1)];
      await ingestNew({ batchBlocks: 1, eventsKept: 3 });
      const [kept] = await store.query<{ oldest: number; n: number }>('test.events.kept', sql`SELECT min(id)::int AS oldest, count(*)::int AS n FROM chain_events WHERE chain = 'pos'`);
      assert.deepEqual(kept, { oldest: before + 3, n: 3 });

      const late = await SseStream.open(apis[0]!.url, { headers: { ...AUTH, 'last-event-id': String(before + 1) } });
      const onTime = await SseStream.open(apis[1]!.url, { headers: { ...AUTH, 'last-event-id': String(before + 2) } });
      try {
        const gap = await late.next();
        assert.equal(gap.event, 'gap');
        assert.deepEqual(gap.data, { chain: 'pos', missed_from: before + 2, missed_to: before + 5 });
        assert.equal(gap.id, String(before + 5));
        for (const block of blocks.slice(2)) assertBlock(await onTime.next(), block, 1);
        // Both go on live after that, the late one with nothing replayed.
        const next = addBlock(2);
        await ingestNew();
        assertBlock(await late.next(), next, 2);
        assertBlock(await onTime.next(), next, 2);
      } finally {
        late.close();
        onTime.close();
      }
    });

    it('needs a key; a malformed Last-Event-ID or last_event_id is a 400 naming it; an unknown chain is a 404', async () => {
      const url = `${apis[0]!.url}/api/v1/pos/events`;
      for (const headers of [{}, { authorization: 'Bearer not-a-key-0123456789' }] as Record<string, string>[]) {
        const res = await fetch(url, { headers });
        assert.equal(res.status, 401);
        assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
        assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      }
      for (const [headers, query, param] of [
        [{ ...AUTH, 'last-event-id': 'abc' }, '', 'last-event-id'],
        [{ ...AUTH, 'last-event-id': '-1' }, '', 'last-event-id'],
        [AUTH, '?last_event_id=1e3', 'last_event_id'],
        [AUTH, '?last_event_id=12345678901234567890', 'last_event_id'],
      ] as const) {
        const res = await fetch(url + query, { headers });
        assert.equal(res.status, 400, `${JSON.stringify(headers)} ${query}`);
        assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
        const body = (await res.json()) as { errors: { param: string }[] };
        assert.deepEqual(body.errors.map((e) => e.param), [param]);
      }
      assert.equal((await fetch(`${apis[0]!.url}/api/v1/pow2/events`, { headers: AUTH })).status, 404);
    });

    it('is neither compressed, nor ETagged, nor cached; carries CORS and rate-limit headers', async () => {
      const stream = await SseStream.open(apis[1]!.url, { headers: { ...AUTH, 'accept-encoding': 'gzip, deflate, br', origin: 'https://explorer.example.org' } });
      try {
        const headers = stream.response.headers;
        assert.equal(headers.get('content-encoding'), null);
        assert.equal(headers.get('etag'), null);
        assert.equal(headers.get('cache-control'), 'no-store');
        assert.equal(headers.get('access-control-allow-origin'), '*');
        assert.ok(headers.get('ratelimit-remaining'));
        // Many events make a body well over the compression threshold: still plain text.
        const blocks = Array.from({ length: 30 }, () => addBlock(1));
        await ingestNew();
        for (const block of blocks) assertBlock(await stream.next(), block, 1);
      } finally {
        stream.close();
      }
    });

    it('one poller per chain while streams are open, none after; heartbeats; at most N streams per key (429); app.close ends streams', async () => {
      const api = await inProcessApi(store, { QUARRY_API_KEYS: `${TEST_KEY},${SECOND_KEY}`, QUARRY_EVENTS_MAX_STREAMS: '2', QUARRY_EVENTS_HEARTBEAT: '100ms' });
      const polls = () => store.stats().get('api.events.poll')?.count ?? 0;
      const other = { authorization: `Bearer ${SECOND_KEY}` };
      const streams: SseStream[] = [];
      try {
        for (const headers of [AUTH, AUTH, other, other]) streams.push(await SseStream.open(api.url, { headers }));
        // Four streams of one chain: one poller, at most one read per interval (timers only ever run late).
        const pollsBefore = polls();
        const started = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const intervals = (performance.now() - started) / POLL_MS;
        const read = polls() - pollsBefore;
        assert.ok(read >= 1 && read <= intervals + 2, `${read} polls in ${intervals.toFixed(1)} intervals`);
        assert.ok(await streams[0]!.comment('heartbeat', 2000), 'a heartbeat comment');

        const refused = await fetch(`${api.url}/api/v1/pos/events`, { headers: AUTH });
        assert.equal(refused.status, 429);
        assert.match(refused.headers.get('content-type') ?? '', /^application\/problem\+json/);
        assert.ok(refused.headers.get('retry-after'));
        assert.match(((await refused.json()) as { detail: string }).detail, /2 open event streams/);
        // The other key's slots are its own, and full too.
        const alsoRefused = await fetch(`${api.url}/api/v1/pos/events`, { headers: other });
        assert.equal(alsoRefused.status, 429);
        await alsoRefused.body?.cancel();
        // A closed stream frees its slot (once the server has seen the disconnection).
        streams.shift()!.close();
        let reopened: SseStream | Response | undefined;
        const deadline = Date.now() + 5000;
        while (!(reopened instanceof SseStream) && Date.now() < deadline) {
          reopened = await SseStream.attempt(api.url);
          if (reopened instanceof Response) {
            assert.equal(reopened.status, 429);
            await reopened.body?.cancel();
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
        assert.ok(reopened instanceof SseStream, 'a slot is free again');
        streams.push(reopened);

        // Every stream closed: the poller stops (once the server has seen the disconnections).
        for (const stream of streams.splice(0)) stream.close();
        await new Promise((resolve) => setTimeout(resolve, 500));
        const idle = polls();
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(polls(), idle, 'no poll without a stream');

        // Closing the app ends an open stream at once (the app's close may then wait a little for
        // keep-alive connections the client holds idle, which is not the stream's doing).
        const open = await SseStream.open(api.url);
        streams.push(open);
        const closing = performance.now();
        const ended = open.endsWithin(2000).then((done) => (done ? performance.now() - closing : null));
        await api.close();
        const endedAfter = await ended;
        assert.ok(endedAfter !== null && endedAfter < 2000, `the stream ended at once (${endedAfter} ms)`);
        assert.ok(performance.now() - closing < 10_000, `closed in ${Math.round(performance.now() - closing)} ms`);
      } finally {
        for (const stream of streams) stream.close();
        await api.close().catch(() => {});
      }
    });

    if (kind === 'postgres') {
      it('SIGTERM ends the open streams and the process promptly', async () => {
        const api = apis[1] as Awaited<ReturnType<typeof childApi>>;
        const stream = await SseStream.open(api.url);
        const started = performance.now();
        api.child.kill('SIGTERM');
        assert.ok(await stream.endsWithin(5000), 'the stream ended');
        assert.equal(await api.exited, 0);
        assert.ok(performance.now() - started < 5000, `exited in ${Math.round(performance.now() - started)} ms`);
      });
    }
  });
}

describeEachStore('event log of a bulk load', (getStore) => {
  it('numbers every event, keeps the newest, logs blocks with the step that applies their rollups, then the closed days', async () => {
    const store = getStore();
    // Five days of blocks an hour apart, with forks that the bulk load settles in memory.
    const c = randomChain('pos', 11, 120, 3600);
    const load = await beginBulkLoad(store);
    const appends = () => store.stats().get('ingest.events.append')?.count ?? 0;
    let batches = 0;
    // Small batches and steps: the rollups of several batches are applied at once, several times.
    await ingest(store, c.source(), { bulk: true, batchBlocks: 10, bulkDeltaKeys: 200, eventsKept: 5, onProgress: () => void batches++ });
    const [reorgs] = await store.query<{ n: number }>('test.reorgs', sql`SELECT count(*)::int AS n FROM reorgs WHERE chain = 'pos'`);
    assert.ok(reorgs!.n > 0, 'the chain had forks');
    // One statement per step that applied rollups: fewer than the batches, more than one.
    assert.ok(appends() > 1 && appends() < batches, `${appends()} appends for ${batches} batches`);
    const events = await store.query<{ id: number; kind: string; data: { height?: number; hash?: string } }>(
      'test.events',
      sql`SELECT id::int AS id, kind, data FROM chain_events WHERE chain = 'pos' ORDER BY id`,
    );
    assert.equal(events.at(-1)!.id, reorgs!.n + c.blocks.length, 'every reorg and block numbered');
    assert.equal(events.length, 5);
    assert.deepEqual(events.map((e) => e.id), [0, 1, 2, 3, 4].map((i) => events.at(-1)!.id - 4 + i));
    assert.deepEqual(events.map((e) => [e.kind, e.data.height, e.data.hash]), c.blocks.slice(-5).map((b) => ['block', b.height, b.hash]));

    await load.finish();
    const days = await store.query<{ id: number; day: string }>('test.days', sql`SELECT id::int AS id, data->>'day' AS day FROM chain_events WHERE chain = 'pos' AND kind = 'day' ORDER BY id`);
    const first = c.blocks[0]!.timestamp;
    const closed: string[] = [];
    for (let ts = first; utcDay(ts) < utcDay(c.tip!.timestamp); ts += 86_400) closed.push(utcDay(ts));
    assert.deepEqual(days.map((d) => d.day), closed);
    assert.equal(days.at(-1)!.id, reorgs!.n + c.blocks.length + closed.length);
  });
});
