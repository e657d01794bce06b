/**
 * `quarry index pow --follow` against a fake QRL node that answers one height badly: the chain
 * stalls there (recorded, nothing stored past it) and the indexer keeps trying; once the node
 * answers it whole, indexing goes on and the store equals a clean run's. And the same indexer
 * outlives its PostgreSQL server being stopped and started under it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import type { SourceItem } from '../../src/chain/model.ts';
import { resolveIndexPowSettings } from '../../src/cli/commands/index-pow.ts';
import { bulkLoadInProgress } from '../../src/ingest/bulk.ts';
import { indexPow } from '../../src/ingest/index-pow.ts';
import type { LocalCluster } from '../../src/store/local-cluster.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store } from '../../src/store/store.ts';
import { acquireWriterLock } from '../../src/store/writer-lock.ts';
import { generatePowItems, referenceDigest, startNodeWithChain, storeDigest, feed } from '../fakes/qrl-node/world.ts';
import { ownClusterSkip, startOwnCluster } from '../support/own-cluster.ts';
import { describeOnOneStore } from '../support/stores.ts';
import { waitFor } from '../support/wait-for.ts';

const silent = pino({ level: 'silent' });
const QUICK = { refetch: { attempts: 2, delayMs: 5, maxDelayMs: 5 }, stallRetryMaxMs: 50 };

let items: SourceItem[];
let expected: Record<string, string>;

before(async () => {
  items = await generatePowItems({ seed: 13, days: 0.1 });
  const { node, views } = await startNodeWithChain(items);
  await node.stop();
  expected = await referenceDigest(views);
});

const settings = (node: string) => ({ ...resolveIndexPowSettings({ node, progress: false }, {}), follow: true, pollIntervalMs: 20 });

async function checkpoint(store: Store): Promise<{ height: number; hash: string } | null> {
  const [row] = await store.query<{ height: string; hash: string }>('t', sql`SELECT height::text AS height, hash FROM checkpoints WHERE chain = 'pow'`);
  return row ? { height: Number(row.height), hash: row.hash } : null;
}

/** Indexes `node` with --follow until `stop` resolves; returns the run (which ends at the abort). */
function follow(store: Store, node: string, extra: { writerLock?: { ensureHeld(): Promise<void> } } = {}) {
  const controller = new AbortController();
  const running = indexPow(store, settings(node), { logger: silent, signal: controller.signal, ...QUICK, ...extra });
  running.catch(() => undefined);
  return {
    async stop() {
      controller.abort();
      return running;
    },
  };
}

describeOnOneStore('quarry index pow --follow at a block the node answers badly', (getStore) => {
  it('stalls at each bad block (cut bytes, then another height\'s block), stores nothing past it, and ends equal to a clean run once the node answers', async () => {
    const store = getStore();
    const { node, address } = await startNodeWithChain(items);
    const bad = { bytes: Math.floor(node.height / 3), 'other-height': Math.floor((2 * node.height) / 3) } as const;
    node.garble(bad.bytes, 'bytes');
    node.garble(bad['other-height'], 'other-height');
    const run = follow(store, address);
    try {
      for (const how of ['bytes', 'other-height'] as const) {
        const height = bad[how];
        await waitFor(async () => {
          const [stall] = await store.query<{ height: string }>('t', sql`SELECT height::text AS height FROM ingest_stalls WHERE chain = 'pow'`);
          return stall?.height === String(height);
        }, `the stall at ${height}`, 120_000);
        const [stall] = await store.query<{ reason: string }>('t', sql`SELECT reason FROM ingest_stalls WHERE chain = 'pow'`);
        assert.match(stall!.reason, how === 'bytes' ? /does not decode as GetBlockByNumberResp/ : new RegExp(`asked for ${height}, got ${height + 1}`));
        // It keeps trying (several runs), and never writes past the bad height.
        const calls = node.calls.get('GetBlockByNumber') ?? 0;
        await waitFor(async () => (node.calls.get('GetBlockByNumber') ?? 0) > calls + 4, 'more tries of the block', 30_000);
        const [top] = await store.query<{ height: number | null }>('t', sql`SELECT max(height)::int AS height FROM blocks WHERE chain = 'pow'`);
        assert.equal(top?.height, height - 1);
        node.repair(height);
      }
      await waitFor(async () => (await checkpoint(store))?.hash === node.headHash, 'the head', 120_000);
    } finally {
      await run.stop();
      await node.stop();
    }
    const [stall] = await store.query('t', sql`SELECT 1 FROM ingest_stalls`);
    assert.equal(stall, undefined, 'the stall is cleared');
    assert.deepEqual(await storeDigest(store), expected);
  });
});

describe('quarry index pow --follow through a PostgreSQL restart [postgres]', { skip: ownClusterSkip() }, () => {
  let cluster: LocalCluster;
  const stores: Store[] = [];
  /** A migrated database of its own on the test's server. */
  async function freshStore(name: string): Promise<Store> {
    const admin = createStore(createPostgresDriver(cluster.url, { poolSize: 1 }));
    await admin.exec('test.create_db', `CREATE DATABASE ${name}`);
    await admin.close();
    const store = createStore(createPostgresDriver(cluster.urlFor(name), { poolSize: 4, connectTimeoutMs: 2000, statementTimeoutMs: 30_000, queryTimeoutMs: 35_000 }), { retryDelayMs: 50 });
    stores.push(store);
    await migrate(store);
    return store;
  }
  before(async () => {
    cluster = await startOwnCluster();
  });
  after(async () => {
    for (const store of stores) await store.close();
    await cluster?.stop();
  });

  it('outlives a restart in the middle of its first (bulk) backfill, and ends equal to a clean run', async () => {
    const store = await freshStore('bulk_outage');
    const slow = await startNodeWithChain(items, { delayMs: 150 });
    const lock = await acquireWriterLock(store, ['pow'], { command: 'index pow (test)' });
    const run = follow(store, slow.address, { writerLock: lock });
    try {
      // The bulk load has begun (its marker is written, indexes dropped) and is still fetching.
      await waitFor(async () => (await bulkLoadInProgress(store)) && (slow.node.calls.get('GetBlockByNumber') ?? 0) > 10, 'the bulk load under way', 60_000);
      assert.equal(await checkpoint(store), null, 'nothing written yet');
      await cluster.stopServer();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await cluster.startServer();
      await waitFor(
        async () => (await checkpoint(store).catch(() => null))?.hash === slow.node.headHash && !(await bulkLoadInProgress(store).catch(() => true)),
        'the head after the restart, the bulk load finished',
        120_000,
      );
    } finally {
      await run.stop();
      await lock.release();
      await slow.node.stop();
    }
    assert.deepEqual(await storeDigest(store), expected);
  });

  it('outlives a restart while following: waits, takes its writer lock again, resumes, and ends equal to a clean run', async () => {
    const store = await freshStore('follow_outage');
    const start = Math.floor(items.length / 2);
    const { node, address } = await startNodeWithChain(items.slice(0, start));
    const lock = await acquireWriterLock(store, ['pow'], { command: 'index pow (test)' });
    const run = follow(store, address, { writerLock: lock });
    try {
      await waitFor(async () => (await checkpoint(store))?.hash === node.headHash && !(await bulkLoadInProgress(store)), 'the first head', 120_000);
      await cluster.stopServer();
      // Blocks arrive while the store is down; the indexer must neither exit nor skip them.
      feed(node, items.slice(start, start + Math.floor((items.length - start) / 2)));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await cluster.startServer();
      feed(node, items.slice(start + Math.floor((items.length - start) / 2)));
      await waitFor(async () => (await checkpoint(store).catch(() => null))?.hash === node.headHash, 'the head after the restart', 120_000);
      // The lock is held again by this writer: a second one is refused.
      await assert.rejects(acquireWriterLock(store, ['pow'], { command: 'second writer' }), /held by/);
    } finally {
      await run.stop();
      await lock.release();
      await node.stop();
    }
    assert.deepEqual(await storeDigest(store), expected);
  });
});
