/**
 * The production layout of docs/deploy.md, on loopback: a PostgreSQL primary that the "indexer"
 * (this test, through ingest) writes, a hot standby made from it with `pg_basebackup -R`, a real
 * Redis, and `quarry serve --workers 2` (the compiled CLI, a child process) reading the standby.
 * One primary, one standby and one serve for every case, in order:
 *  - the standby's answers are the primary's, byte for byte (ETags equal), and a cursor taken from
 *    the primary pages the same on the standby;
 *  - the supply-age routes, whose state lives beside an unlogged table, answer on the standby too;
 *  - while replay is paused the standby reports the bytes it has not replayed and keeps answering
 *    the point it has replayed; once replay resumes its kept answers move with it (never stale);
 *  - requests on new connections land on both workers; one /metrics scrape counts all of them;
 *  - the rate limit counts across the workers (through Redis);
 *  - /metrics answers while a killed worker is replaced (the one starting is not waited for);
 *  - a killed worker is replaced; SIGTERM ends the primary and every worker, exit code 0.
 * And `serve`'s schema check refuses a standby that is behind this build's migrations.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { checkSchema } from '../../src/cli/commands/serve.ts';
import { loadConfig } from '../../src/config/env.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { startLocalCluster, type LocalCluster } from '../../src/store/local-cluster.ts';
import { migrate } from '../../src/store/migrate.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/store.ts';
import { AUTH, buildTestApp, TEST_KEY, type TestApp } from '../support/app.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { ownClusterSkip } from '../support/own-cluster.ts';
import { quarryArgs } from '../support/quarry-command.ts';
import { redisUnavailable, startTestRedis, type TestRedis } from '../support/redis.ts';
import { waitFor } from '../support/wait-for.ts';

const root = path.resolve(import.meta.dirname, '../..');
const skip = ownClusterSkip() || redisUnavailable() || false;

/** Requests without a valid key one client address may make per window (counted across workers). */
const ANON_MAX = 8;

const T0 = Date.UTC(2026, 2, 1) / 1000;
const alice = addr('pos', 'alice');
const bob = addr('pos', 'bob');

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One GET on a connection of its own (no keep-alive), so the cluster hands it to the next worker. */
function get(base: string, url: string, headers: Record<string, string> = AUTH): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${base}${url}`, { agent: false, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('error', reject);
  });
}

interface LogLine {
  msg?: string;
  pid?: number;
  worker?: number | string;
  url?: string;
  req?: { url?: string };
  [key: string]: unknown;
}

/** `quarry serve --workers 2` in a child process, with its log lines as they come. */
class Serve {
  readonly lines: LogLine[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  private constructor(readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    let buffer = '';
    child.stdout!.on('data', (chunk) => {
      buffer += String(chunk);
      const parts = buffer.split('\n');
      buffer = parts.pop()!;
      for (const part of parts) if (part.startsWith('{')) this.lines.push(JSON.parse(part) as LogLine);
    });
    child.stderr!.on('data', (chunk) => (this.stderr += String(chunk)));
  }

  static start(env: Record<string, string>): Serve {
    const child = spawn(process.execPath, quarryArgs(['serve', '--workers', '2']), { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    return new Serve(child);
  }

  async waitForLine(what: string, match: (line: LogLine) => boolean, ms = 60_000): Promise<LogLine> {
    let found: LogLine | undefined;
    await waitFor(async () => {
      if (this.child.exitCode !== null) throw new Error(`quarry serve exited with ${this.child.exitCode}: ${this.stderr.slice(-2000)}`);
      found = this.lines.find(match);
      return found !== undefined;
    }, what, ms);
    return found!;
  }

  /** The pids of the workers serving now: those that said so and are still alive. */
  workerPids(): number[] {
    return [...new Set(this.lines.filter((l) => l.msg === 'API worker is serving').map((l) => l.pid!))].filter(alive);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a primary, a standby and `quarry serve --workers 2` on the standby, with Redis', { skip }, () => {
  let primary: LocalCluster;
  let standby: LocalCluster;
  let redis: TestRedis;
  let writer: Store;
  let reader: Store;
  let primaryApi: TestApp;
  let serve: Serve;
  let base = '';
  let chain: ChainBuilder;
  const dirs: string[] = [];

  /** The standby has replayed everything the primary wrote so far. */
  const caughtUp = async () => {
    const [row] = await writer.query<{ lsn: string }>('test.primary_lsn', sql`SELECT pg_current_wal_lsn()::text AS lsn`);
    const lsn = row!.lsn;
    await waitFor(async () => {
      const [row] = await reader.query<{ done: boolean }>('test.replayed', sql`SELECT pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn AS done`);
      return Boolean(row?.done);
    }, 'the standby to replay the primary’s writes', 30_000);
  };
  const onPrimary = async (url: string) => {
    const res = await primaryApi.app.inject({ url, headers: AUTH });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  };

  before(async () => {
    const settings = { fsync: 'off', synchronous_commit: 'off', max_connections: '60', shared_buffers: '32MB' };
    [primary, redis] = await Promise.all([startLocalCluster({ settings }), startTestRedis()]);
    standby = await startLocalCluster({ standbyOf: primary, settings });
    writer = await openStore(loadConfig({ QUARRY_DATABASE_URL: primary.url }), 'indexer');
    reader = await openStore(loadConfig({ QUARRY_DATABASE_URL: standby.url }), 'api');

    // The standby's schema comes from the primary: before the primary is migrated, serve refuses it.
    await assert.rejects(checkSchema(reader, pino({ level: 'silent' }), true), /the standby's schema is \d+ migration\(s\) behind this quarry: run `quarry migrate` against the primary/);

    await migrate(writer);
    chain = new ChainBuilder('pos', T0, 60);
    chain.block((b) => b.genesis([{ address: alice, amount: coins('pos', 1000) }]));
    for (let i = 1; i <= 4; i++) chain.block((b) => b.transfer(alice, bob, coins('pos', i)));
    await ingest(writer, chain.source());
    await caughtUp();
    await checkSchema(reader, pino({ level: 'silent' }), false);

    primaryApi = await buildTestApp(writer);
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quarry-replica-'));
    dirs.push(dataDir);
    serve = Serve.start({
      QUARRY_DATABASE_URL: standby.url,
      QUARRY_REDIS_URL: redis.url,
      QUARRY_DATA_DIR: dataDir,
      QUARRY_API_KEYS: TEST_KEY,
      QUARRY_RATE_LIMIT_ANON_MAX: String(ANON_MAX),
      QUARRY_DB_POOL_SIZE: '4',
      PORT: '0',
      HOST: '127.0.0.1',
      QUARRY_LOG_LEVEL: 'info',
    });
    base = (await serve.waitForLine('quarry serve to listen', (l) => l.msg === 'quarry is serving' && l.worker === 'primary')).url!;
  });

  after(async () => {
    if (serve && serve.child.exitCode === null) {
      serve.child.kill('SIGKILL');
      for (const pid of serve.workerPids()) process.kill(pid, 'SIGKILL');
    }
    await primaryApi?.close();
    await reader?.close();
    await writer?.close();
    await standby?.stop();
    await primary?.stop();
    await redis?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const SAME = [
    `/api/v1/pos/addresses/${alice}`,
    `/api/v1/pos/addresses/${alice}/transactions?limit=2`,
    '/api/v1/analytics/supply/holders-distribution?chain=pos',
    '/api/v1/analytics/block-size?chain=pos&window=3650d',
  ];

  it('answers on the standby as the primary does: bodies, ETags, freshness headers, cursors', async () => {
    for (const url of SAME) {
      const [mine, theirs] = [await onPrimary(url), await get(base, url)];
      assert.equal(theirs.status, 200, `${url}: ${theirs.body}`);
      assert.equal(mine.status, 200, url);
      assert.deepEqual(JSON.parse(theirs.body), JSON.parse(mine.body), url);
      assert.equal(theirs.headers.etag, mine.headers.etag, url);
      assert.equal(theirs.headers['quarry-block-height'] ?? theirs.headers['quarry-pos-block-height'], String(chain.tip!.height), url);
    }
    // The cursor of the primary's first page reads the same second page on the standby.
    const first = JSON.parse((await onPrimary(`/api/v1/pos/addresses/${alice}/transactions?limit=2`)).body) as { next_cursor: string; items: unknown[] };
    assert.equal(first.items.length, 2);
    assert.ok(first.next_cursor);
    const next = `/api/v1/pos/addresses/${alice}/transactions?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`;
    const [mine, theirs] = [await onPrimary(next), await get(base, next)];
    assert.equal(theirs.status, 200, theirs.body);
    assert.deepEqual(JSON.parse(theirs.body), JSON.parse(mine.body));
    assert.equal((JSON.parse(theirs.body) as { items: unknown[] }).items.length, 2);
  });

  it('answers the supply-age routes on the standby as the primary does (their state day is read without holder_state, which is unlogged)', async () => {
    // A standby cannot plan a query that names an unlogged table: the day the age cells describe
    // must come from holder_state_meta alone.
    for (const url of ['/api/v1/analytics/supply/age-daily?chain=pos', '/api/v1/analytics/supply/dormant-buckets?chain=pos']) {
      const [mine, theirs] = [await onPrimary(url), await get(base, url)];
      assert.equal(theirs.status, 200, `${url}: ${theirs.body}`);
      assert.equal(mine.status, 200, url);
      assert.deepEqual(JSON.parse(theirs.body), JSON.parse(mine.body), url);
    }
  });

  it('reports replay lag while replay is paused, answers the point replayed, and moves on when it resumes', async () => {
    // Kept per snapshot (plugins/snapshot-cache.ts); one item per day.
    const url = '/api/v1/analytics/block-size?chain=pos&window=3650d';
    const ready = JSON.parse((await get(base, '/readyz')).body);
    assert.deepEqual(ready.replica, { role: 'standby', lag_seconds: 0, lag_bytes: 0 });
    assert.equal(ready.chains.pos.tip_height, chain.tip!.height);
    const before = await get(base, url);
    // Twice, so that both workers hold the answer in their caches.
    await get(base, url);

    await reader.query('test.pause', sql`SELECT pg_wal_replay_pause()`);
    try {
      // A block on a new day: the answer gains an item.
      chain.block((b) => b.transfer(alice, addr('pos', 'carol'), coins('pos', 5)), { gap: 1440 });
      await ingest(writer, chain.source());
      let lagged: { replica: { role: string; lag_seconds: number; lag_bytes: number } } | undefined;
      await waitFor(async () => {
        lagged = JSON.parse((await get(base, '/readyz')).body);
        return lagged!.replica.lag_bytes > 0;
      }, '/readyz to report WAL not replayed', 30_000);
      assert.equal(lagged!.replica.role, 'standby');
      // The age of the last transaction replayed: it grows while replay stays paused.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const later = JSON.parse((await get(base, '/readyz')).body);
      assert.ok(later.replica.lag_seconds > lagged!.replica.lag_seconds && later.replica.lag_bytes > 0, JSON.stringify([lagged!.replica, later.replica]));
      const health = await get(base, '/api/v1/analytics/network/health');
      assert.equal(health.status, 200, health.body);
      const replica = JSON.parse(health.body).replica;
      assert.equal(replica.role, 'standby');
      assert.ok(replica.lag_bytes > 0, JSON.stringify(replica));
      // Still the replayed point, on every worker: the same bytes and block.
      for (let i = 0; i < 2; i++) {
        const paused = await get(base, url);
        assert.equal(paused.body, before.body);
        assert.equal(paused.headers['quarry-block-height'], String(chain.tip!.height - 1));
      }
    } finally {
      await reader.query('test.resume', sql`SELECT pg_wal_replay_resume()`);
    }
    await caughtUp();
    const expected = await onPrimary(url);
    assert.notEqual(expected.body, before.body, 'the new block changes the answer');
    for (let i = 0; i < 2; i++) {
      const moved = await get(base, url);
      assert.equal(moved.body, expected.body, 'a kept answer is not served after replay moved the data');
      assert.equal(moved.headers.etag, expected.headers.etag);
      assert.equal(moved.headers['quarry-block-height'], String(chain.tip!.height));
    }
    const ready2 = JSON.parse((await get(base, '/readyz')).body);
    assert.deepEqual(ready2.replica, { role: 'standby', lag_seconds: 0, lag_bytes: 0 });
  });

  it('spreads new connections over both workers, and one /metrics scrape counts every worker’s requests', async () => {
    const start = serve.lines.length;
    const scrape = async () => (await get(base, '/metrics', {})).body;
    const healthz = (text: string) => {
      const line = text.split('\n').find((l) => l.startsWith('quarry_http_requests_total{') && l.includes('route="/healthz"') && l.includes('status="200"'));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const before = healthz(await scrape());
    for (let i = 0; i < 6; i++) assert.equal((await get(base, '/healthz', {})).status, 200);
    const served = new Set(serve.lines.slice(start).filter((l) => l.msg === 'incoming request' && l.req?.url === '/healthz').map((l) => l.worker));
    assert.equal(served.size, 2, `workers that served /healthz: ${[...served].join(', ')}`);
    const text = await scrape();
    assert.equal(healthz(text) - before, 6);
    // The store's gauges are the one standby's, not summed over the workers.
    assert.match(text, /^quarry_store_standby 1$/m);
    assert.match(text, /^quarry_store_up 1$/m);
  });

  it('counts the rate limit across the workers, through Redis', async () => {
    const url = '/api/v1/pos/addresses/stats/summary';
    const start = serve.lines.length;
    const statuses: number[] = [];
    for (let i = 0; i < ANON_MAX + 1; i++) statuses.push((await get(base, url, {})).status);
    const served = new Set(serve.lines.slice(start).filter((l) => l.msg === 'incoming request').map((l) => l.worker));
    assert.equal(served.size, 2, 'both workers counted');
    assert.deepEqual(statuses, [...Array(ANON_MAX).fill(401), 429]);
  });

  it('answers /metrics while a killed worker is being replaced, with the serving workers\' counts', async () => {
    const [victim] = serve.workerPids();
    assert.ok(victim, 'a worker');
    process.kill(victim, 'SIGKILL');
    await serve.waitForLine('the primary to report the dead worker', (l) => l.msg === 'API worker died: starting another' && l.pid === victim);
    // Until the replacement serves (it is forked, then starts for a second or more), every scrape
    // answers at once with the serving worker's counts: the one starting is not waited for.
    let scrapes = 0;
    while (serve.workerPids().length < 2) {
      const started = Date.now();
      const during = await get(base, '/metrics', {});
      assert.equal(during.status, 200, during.body);
      assert.match(during.body, /^quarry_http_requests_total\{/m);
      assert.ok(Date.now() - started < 2500, `the scrape took ${Date.now() - started} ms`);
      scrapes++;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(scrapes >= 3, `only ${scrapes} scrapes while the worker was replaced`);
    const after = await get(base, '/metrics', {});
    assert.equal(after.status, 200, after.body);
  });

  it('replaces a killed worker, and SIGTERM ends every process with exit code 0', async () => {
    const [first, second] = serve.workerPids();
    assert.ok(first && second, 'two workers');
    process.kill(first, 'SIGKILL');
    await serve.waitForLine('the primary to report the dead worker', (l) => l.msg === 'API worker died: starting another' && l.pid === first);
    await waitFor(async () => serve.workerPids().length === 2, 'a new worker to serve', 60_000);
    const pids = serve.workerPids();
    assert.ok(!pids.includes(first) && pids.includes(second), pids.join(', '));
    for (let i = 0; i < 2; i++) assert.equal((await get(base, '/api/v1/pos/addresses/stats/summary')).status, 200);

    serve.child.kill('SIGTERM');
    assert.equal(await serve.exited, 0, serve.stderr);
    await waitFor(async () => pids.every((pid) => !alive(pid)), 'the workers to exit', 10_000);
  });
});
