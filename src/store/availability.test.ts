import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import sql from 'sql-template-tag';
import { ownClusterSkip, startOwnCluster } from '../../test/support/own-cluster.ts';
import { StoreWaitAbortedError, waitForStore } from './availability.ts';
import { StoreUnavailableError } from './errors.ts';
import type { LocalCluster } from './local-cluster.ts';
import { createPostgresDriver } from './postgres.ts';
import { createStore, type Store } from './store.ts';

/** A logger that keeps its lines. */
function recordingLogger() {
  const lines: { level: string; fields: object; message: string }[] = [];
  return {
    lines,
    warn: (fields: object, message: string) => lines.push({ level: 'warn', fields, message }),
    info: (fields: object, message: string) => lines.push({ level: 'info', fields, message }),
  };
}

describe('store availability [postgres]', { skip: ownClusterSkip() }, () => {
  let cluster: LocalCluster;
  const stores: Store[] = [];
  const open = (options: Parameters<typeof createPostgresDriver>[1] = {}) => {
    const store = createStore(createPostgresDriver(cluster.url, { poolSize: 2, connectTimeoutMs: 2000, ...options }), { retryDelayMs: 50 });
    stores.push(store);
    return store;
  };
  before(async () => {
    cluster = await startOwnCluster();
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close().catch(() => {})));
    await cluster?.stop();
  });

  it('waitForStore waits across a server stop and start, logging the wait once and its end', async () => {
    const store = open();
    assert.deepEqual(await waitForStore(store), { attempts: 1, waitedMs: 0 });
    await cluster.stopServer();
    await assert.rejects(store.query('test.down', sql`SELECT 1`), StoreUnavailableError);
    const logger = recordingLogger();
    const waiting = waitForStore(store, { logger, what: 'test', initialDelayMs: 100, maxDelayMs: 400 });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.deepEqual(logger.lines.map((line) => line.level), ['warn'], 'one warning while the store is down');
    await cluster.startServer();
    const wait = await waiting;
    assert.ok(wait.attempts > 2 && wait.waitedMs >= 1000, JSON.stringify(wait));
    assert.deepEqual(logger.lines.map((line) => line.level), ['warn', 'info']);
    assert.match(logger.lines[1]!.message, /store is back after \d+\.\d s; test resumes/);
    assert.deepEqual(await store.query('test.back', sql`SELECT 1 AS one`), [{ one: 1 }]);
  });

  it('asks the server to probe its connections too, so a vanished client releases its locks', async () => {
    const store = open();
    assert.deepEqual(await store.query('test.keepalive', sql`SELECT current_setting('tcp_keepalives_idle') AS idle`), [{ idle: '10' }]);
    const session = await store.openSession();
    assert.deepEqual(await session.query('test.keepalive', sql`SELECT current_setting('tcp_keepalives_count') AS count`), [{ count: '6' }]);
    await session.close();
  });

  it('waitForStore stops when its signal aborts', async () => {
    const store = open();
    await cluster.stopServer();
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const started = performance.now();
      await assert.rejects(waitForStore(store, { signal: controller.signal, what: 'test', initialDelayMs: 5000 }), StoreWaitAbortedError);
      assert.ok(performance.now() - started < 3000, 'stopped at once');
    } finally {
      await cluster.startServer();
    }
  });

  it('a statement past the client-side query timeout fails as StoreUnavailableError in bounded time', async () => {
    const store = open({ queryTimeoutMs: 500 });
    let started = performance.now();
    await assert.rejects(store.query('test.sleep', sql`SELECT pg_sleep(30)`), StoreUnavailableError);
    assert.ok(performance.now() - started < 3000, 'not retried, not waited out');

    // Blocked by a lock another connection holds, in and out of a transaction.
    await store.exec('test.table', 'CREATE TABLE IF NOT EXISTS blocked (n int)');
    const holder = new pg.Client({ connectionString: cluster.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE blocked IN ACCESS EXCLUSIVE MODE');
      started = performance.now();
      await assert.rejects(store.query('test.blocked', sql`SELECT count(*) FROM blocked`), StoreUnavailableError);
      await assert.rejects(
        store.transaction('test.blocked', (tx) => tx.query('test.blocked.insert', sql`INSERT INTO blocked VALUES (1)`)),
        StoreUnavailableError,
      );
      assert.ok(performance.now() - started < 4000, 'both gave up in bounded time');
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
    // The pool dropped the connections that timed out and works on.
    assert.deepEqual(await store.query('test.after', sql`SELECT count(*)::int AS n FROM blocked`), [{ n: 0 }]);
  });
});
