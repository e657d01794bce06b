import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sql from 'sql-template-tag';
import { ownClusterSkip, startOwnCluster } from '../../test/support/own-cluster.ts';
import { waitFor } from '../../test/support/wait-for.ts';
import { waitForStore } from './availability.ts';
import type { LocalCluster } from './local-cluster.ts';
import { migrate } from './migrate.ts';
import { createPgliteDriver } from './pglite.ts';
import { createPostgresDriver } from './postgres.ts';
import { createStore, type Store } from './store.ts';
import { acquireWriterLock, WriterLockHeldError, writerLockKey, WRITER_LOCK_NAMESPACE } from './writer-lock.ts';

const SINCE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** The holder `acquireWriterLock` was refused by. */
async function refusal(attempt: Promise<unknown>): Promise<WriterLockHeldError> {
  try {
    await attempt;
  } catch (error) {
    assert.ok(error instanceof WriterLockHeldError, `expected WriterLockHeldError, got ${String(error)}`);
    return error;
  }
  assert.fail('the second writer was not refused');
}

describe('writer lock keys', () => {
  it('are "QRRY" and the chain id read as a number', () => {
    assert.equal(WRITER_LOCK_NAMESPACE, 1364349529);
    assert.equal(writerLockKey('pow'), 0x706f77);
    assert.equal(writerLockKey('pos'), 0x706f73);
  });
});

describe('writer lock [pglite]', () => {
  let store: Store;
  before(async () => {
    store = createStore(await createPgliteDriver(undefined));
    await migrate(store);
  });
  after(async () => {
    await store.close();
  });

  it('refuses a second writer of a chain within the process, and takes it again after release', async () => {
    const first = await acquireWriterLock(store, ['pos'], { command: 'index pos' });
    const refused = await refusal(acquireWriterLock(store, ['pos', 'pow'], { command: 'generate' }));
    assert.equal(refused.holder.chain, 'pos');
    assert.equal(refused.holder.host, os.hostname());
    assert.equal(refused.holder.pid, process.pid);
    assert.match(refused.message, /quarry index pos/);
    // The refused command took nothing: pow is free.
    const pow = await acquireWriterLock(store, ['pow'], { command: 'index pow' });
    await first.ensureHeld();
    await first.release();
    await first.release();
    const again = await acquireWriterLock(store, ['pos'], { command: 'refresh' });
    await Promise.all([again.release(), pow.release()]);
    const [row] = await store.query<{ n: number }>('test.rows', sql`SELECT count(*)::int AS n FROM writer_locks`);
    assert.equal(row!.n, 0, 'a released lock leaves no description');
  });
});

describe('writer lock [postgres]', { skip: ownClusterSkip() }, () => {
  let cluster: LocalCluster;
  const stores: Store[] = [];
  const open = () => {
    const store = createStore(createPostgresDriver(cluster.url, { poolSize: 2, connectTimeoutMs: 2000, queryTimeoutMs: 10_000 }), { retryDelayMs: 50 });
    stores.push(store);
    return store;
  };
  before(async () => {
    cluster = await startOwnCluster();
    await migrate(open());
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close().catch(() => {})));
    await cluster?.stop();
  });

  it('refuses a second writer at once, naming host, pid and since; takes it after release', async () => {
    const [a, b] = [open(), open()];
    const held = await acquireWriterLock(a, ['pow', 'pos'], { command: 'generate' });
    const started = performance.now();
    const refused = await refusal(acquireWriterLock(b, ['pos'], { command: 'index pos' }));
    assert.ok(performance.now() - started < 2000, 'refused without waiting');
    assert.deepEqual({ ...refused.holder, since: undefined }, { chain: 'pos', host: os.hostname(), pid: process.pid, since: undefined, command: 'generate' });
    assert.match(refused.holder.since!, SINCE);
    assert.match(refused.message, new RegExp(`host ${os.hostname()}, pid ${process.pid}, since ${refused.holder.since}`));
    await held.release();
    const second = await acquireWriterLock(b, ['pos'], { command: 'index pos' });
    await second.release();
  });

  it('a refused CLI command exits non-zero naming the holder', async () => {
    const held = await acquireWriterLock(open(), ['pos'], { command: 'index pos' });
    try {
      const bin = path.resolve(import.meta.dirname, '../../bin/quarry.js');
      const child = spawn(process.execPath, [bin, 'refresh', '--chain', 'pos'], {
        env: { ...process.env, QUARRY_DATABASE_URL: cluster.url, QUARRY_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.notEqual(code, 0, output);
      assert.match(output, new RegExp(`the pos writer lock is held by \`quarry index pos\` on host ${os.hostname()}, pid ${process.pid}, since `));
    } finally {
      await held.release();
    }
  });

  it('ensureHeld re-takes the lock after a server restart, or names the writer that took it meanwhile', async () => {
    const [a, b] = [open(), open()];
    const held = await acquireWriterLock(a, ['pos'], { command: 'index pos' });
    await cluster.stopServer();
    await waitFor(async () => held.lost, 'the lock connection to be seen lost', 10_000);
    await cluster.startServer();
    await waitForStore(a, { initialDelayMs: 50 });
    await held.ensureHeld();
    assert.equal(held.lost, false);
    await refusal(acquireWriterLock(b, ['pos'], { command: 'refresh' }));

    // Restarted again, and another writer is first.
    await cluster.stopServer('immediate');
    await cluster.startServer();
    await waitForStore(b, { initialDelayMs: 50 });
    const other = await acquireWriterLock(b, ['pos'], { command: 'refresh' });
    const refused = await refusal(held.ensureHeld());
    assert.equal(refused.holder.command, 'refresh');
    assert.equal(refused.holder.pid, process.pid);
    await Promise.all([other.release(), held.release()]);
  });
});
