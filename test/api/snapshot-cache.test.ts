/**
 * Answers kept per database snapshot (src/api/plugins/snapshot-cache.ts): a repeated request runs
 * no query of its route, a committed block makes the next answer include it, health is computed
 * every time and the dashboard's and tps' figures once per snapshot, the Addresses API's answers
 * are kept in a share of their own, compressed forms are kept with the answer, and the cache can be
 * turned off. Its key is the normalised request (junk parameters and equivalent
 * spellings are one entry), its budget counts keys, bodies and per-entry overhead, and only operator
 * keys may force a recomputation with `Cache-Control: no-cache`.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, it, mock } from 'node:test';
import pg from 'pg';
import zlib from 'node:zlib';
import { buildApp } from '../../src/api/app.ts';
import { ADDRESS_SHARE, ENTRY_OVERHEAD } from '../../src/api/plugins/snapshot-cache.ts';
import { createKeyVerifier, issueKey } from '../../src/auth/keys.ts';
import { loadConfig } from '../../src/config/env.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { formatTimestamp } from '../../src/time.ts';
import type { LocalCluster } from '../../src/store/local-cluster.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store, type StoreKind } from '../../src/store/store.ts';
import { AUTH, buildTestApp, TEST_KEY } from '../support/app.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';
import { createDatabase } from '../support/fresh-stores.ts';
import { ownClusterSkip, startOwnCluster } from '../support/own-cluster.ts';

/** Labels the cache, the store's own availability check and the key verifier's reload run, not a route's queries. */
const NOT_ROUTE = new Set(['api.snapshot', 'store.ping', 'keys.active']);

/** Statements the store ran, the snapshot question and availability checks aside. */
const statements = (store: Store) => [...store.stats()].filter(([label]) => !NOT_ROUTE.has(label)).reduce((n, [, s]) => n + s.count, 0);

/** Statement counts by label, to name what ran between two moments. */
const countsByLabel = (store: Store) => new Map([...store.stats()].filter(([label]) => !NOT_ROUTE.has(label)).map(([label, s]) => [label, s.count]));

/** The labels that ran since `before` (a snapshot of countsByLabel). */
const ranSince = (store: Store, before: Map<string, number>) => [...countsByLabel(store)].filter(([label, n]) => n > (before.get(label) ?? 0)).map(([label]) => label);

/**
 * The snapshot answers are filed under is the whole server's (pg_current_snapshot()): on the run's
 * shared server a write of any other test file moves it, and the counts below would be off. The
 * PostgreSQL cases run on a server of their own, a fresh database each, where only their own
 * writes move it.
 */
let ownServer: Promise<{ cluster: LocalCluster; template: string }> | undefined;
after(async () => (await ownServer)?.cluster.stop());

async function createOn(cluster: LocalCluster, name: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  try {
    await createDatabase(client, name, template);
  } finally {
    await client.end();
  }
}

async function openStore(kind: StoreKind): Promise<Store> {
  if (kind !== 'postgres' || ownClusterSkip()) return openTestStore(kind);
  ownServer ??= (async () => {
    const cluster = await startOwnCluster();
    const template = 'quarry_migrated';
    await createOn(cluster, template);
    const store = createStore(createPostgresDriver(cluster.urlFor(template), { poolSize: 2 }));
    await migrate(store);
    await store.close();
    return { cluster, template };
  })();
  const { cluster, template } = await ownServer;
  const name = `quarry_test_${randomBytes(6).toString('hex')}`;
  await createOn(cluster, name, template);
  // Prepared statements where a statement asks for them, as the API process runs them.
  return createStore(createPostgresDriver(cluster.urlFor(name), { poolSize: 4, prepare: true }));
}

/** A store with two blocks of pos, the second a day after the first. */
async function twoBlocks(store: Store, name: string): Promise<void> {
  const chain = 'pos';
  const [alice, bob] = [addr(chain, `${name} alice`), addr(chain, `${name} bob`)];
  const builder = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 12) / 1000, 12);
  builder.block((b) => b.genesis([{ address: alice, amount: coins(chain, 1000) }]));
  builder.block((b) => b.transfer(alice, bob, coins(chain, 1)), { gap: 86_400 });
  await ingest(store, builder.source());
}

describeEachStore('answers kept per database snapshot', (_getStore, kind) => {
  it('repeats an answer without its queries until a block commits, then answers with the block', async () => {
    const store = await openStore(kind);
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000' });
    try {
      const chain = 'pos';
      const [alice, bob] = [addr(chain, 'cache alice'), addr(chain, 'cache bob')];
      const builder = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 12) / 1000, 12);
      builder.block((b) => b.genesis([{ address: alice, amount: coins(chain, 1000) }]));
      builder.block((b) => b.transfer(alice, bob, coins(chain, 1)));
      await ingest(store, builder.source());

      const url = '/api/v1/analytics/block-size?chain=pos&window=3650d';
      const get = (headers: Record<string, string> = {}) => t.app.inject({ url, headers: { ...AUTH, ...headers } });
      const first = await get();
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().items.at(-1).block_count, 2);

      const before = countsByLabel(store);
      const again = await get();
      assert.deepEqual(ranSince(store, before), [], 'the repeated request ran no query of its route');
      assert.equal(again.body, first.body);
      assert.equal(again.headers['etag'], first.headers['etag']);
      assert.equal(again.headers['content-type'], first.headers['content-type']);
      assert.equal((await get({ 'if-none-match': String(first.headers['etag']) })).statusCode, 304);

      // Another query string is another answer; a bad one is still refused, naming the parameter.
      assert.equal((await t.app.inject({ url: '/api/v1/analytics/block-size?chain=pos&window=2d', headers: AUTH })).json().items.length, 1);
      const bad = await t.app.inject({ url: '/api/v1/analytics/block-size?chain=pos&window=0d', headers: AUTH });
      assert.equal(bad.statusCode, 400);
      assert.ok(bad.json().errors.some((e: { param: string }) => e.param === 'window'));

      builder.block((b) => b.transfer(bob, alice, coins(chain, 1)));
      await ingest(store, builder.source());
      const after = await get();
      assert.equal(after.json().items.at(-1).block_count, 3, 'the committed block is in the next answer');
      assert.notEqual(after.headers['etag'], first.headers['etag']);

      // Health reads the clock (its lags, checked_at): not kept whole, its figures computed once per
      // snapshot and second of the clock.
      const health = () => t.app.inject({ url: '/api/v1/analytics/network/health', headers: AUTH });
      const second = () => Math.floor(Date.now() / 1000);
      const startedIn = second();
      assert.equal((await health()).statusCode, 200);
      const beforeHealth = countsByLabel(store);
      await health();
      const healthRan = () => ranSince(store, beforeHealth).filter((label) => label.startsWith('analytics.health'));
      if (second() === startedIn) assert.deepEqual(healthRan(), [], 'the same second and snapshot: no figure computed again');
      builder.block((b) => b.transfer(bob, alice, coins(chain, 1)));
      await ingest(store, builder.source());
      const afterBlock = await health();
      assert.ok(healthRan().length > 0, 'a new snapshot: the figures computed again');
      assert.equal(afterBlock.json().chains[`${chain}:${t.config.networks[chain]}`].latest_block_time, formatTimestamp(builder.tip!.timestamp));

      // The dashboard reads the clock (`generated_at`) at every request, and its figures once a snapshot.
      const dashboard = () => t.app.inject({ url: '/api/v1/analytics/dashboard/summary', headers: AUTH });
      const d1 = await dashboard();
      assert.equal(d1.statusCode, 200, d1.body);
      assert.equal(d1.json().chains.pos.max_height, 3);
      const beforeDashboard = countsByLabel(store);
      const d2 = await dashboard();
      assert.deepEqual(ranSince(store, beforeDashboard), [], 'the figures of the same snapshot are not read again');
      assert.deepEqual(d2.json().chains, d1.json().chains);
      assert.ok(d2.json().generated_at >= d1.json().generated_at);
      builder.block((b) => b.transfer(alice, bob, coins(chain, 1)));
      await ingest(store, builder.source());
      assert.equal((await dashboard()).json().chains.pos.max_height, 4, 'a committed block is in the next answer');

      // So does network/tps: its windows end at the latest block, its `generated_at` is the clock's.
      const tps = () => t.app.inject({ url: '/api/v1/analytics/network/tps', headers: AUTH });
      const r1 = await tps();
      assert.equal(r1.statusCode, 200, r1.body);
      const beforeTps = countsByLabel(store);
      const r2 = await tps();
      assert.deepEqual(ranSince(store, beforeTps), [], 'the rates of the same snapshot are not read again');
      assert.deepEqual(r2.json().items, r1.json().items);
      // Within the hour before the tip: one more transaction in every window.
      builder.block((b) => b.transfer(alice, bob, coins(chain, 1)));
      await ingest(store, builder.source());
      const pos = (res: { json(): { items: { chain: string; tps_1h: number }[] } }) => res.json().items.find((i) => i.chain === 'pos')!.tps_1h;
      assert.ok(pos(await tps()) > pos(r1), 'a committed block is in the next answer');
    } finally {
      await t.close();
      await store.close();
    }
  });

  it('keeps Addresses API answers in their own share, which a crawl of addresses cannot push the charts out of', async () => {
    const store = await openStore(kind);
    const total = 64 * 1024;
    const config = { ...loadConfig({ QUARRY_API_KEYS: TEST_KEY, QUARRY_RATE_LIMIT_MAX: '100000', QUARRY_FRESHNESS_MS: '0' }), responseCacheBytes: total };
    const keys = await createKeyVerifier(store, config.apiKeys, 50);
    const app = await buildApp({ config, store, keys, logger: false });
    try {
      const chain = 'pos';
      const holders = Array.from({ length: 60 }, (_, i) => addr(chain, `crawl ${i}`));
      const builder = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 12) / 1000, 12);
      builder.block((b) => b.genesis(holders.map((address, i) => ({ address, amount: coins(chain, 1000 + i) }))));
      builder.block((b) => b.transfer(holders[0]!, holders[1]!, coins(chain, 1)));
      await ingest(store, builder.source());
      const get = (url: string) => app.inject({ url, headers: AUTH });

      const chart = '/api/v1/analytics/block-size?chain=pos&window=3650d';
      assert.equal((await get(chart)).statusCode, 200);
      const detail = `/api/v1/pos/addresses/${holders[0]}`;
      const first = await get(detail);
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().address, holders[0]);

      // A repeated address page runs no query of its route, and says the same.
      let before = countsByLabel(store);
      const again = await get(detail);
      assert.deepEqual(ranSince(store, before), [], 'the repeated address page ran no query of its route');
      assert.equal(again.body, first.body);
      assert.equal(again.headers['etag'], first.headers['etag']);
      assert.equal(again.headers['quarry-block-height'], '1');

      // A crawl over every address fills the Addresses API's share, and no more.
      for (const address of holders) assert.equal((await get(`/api/v1/pos/addresses/${address}/transactions?limit=100`)).statusCode, 200);
      const stats = app.snapshotCacheStats();
      assert.ok(stats.addressEntries > 1 && stats.addressEntries < holders.length + 1, `${stats.addressEntries} address answers kept`);
      assert.equal(stats.entries - stats.addressEntries, 1, 'the chart is still kept');
      before = countsByLabel(store);
      assert.equal((await get(chart)).statusCode, 200);
      assert.deepEqual(ranSince(store, before), [], 'the chart is answered from memory after the crawl');
      assert.ok(stats.bytes <= total);

      // The next block is in the next answer.
      builder.block((b) => b.transfer(holders[1]!, holders[0]!, coins(chain, 1)));
      await ingest(store, builder.source());
      const moved = await get(detail);
      assert.notEqual(moved.body, first.body);
      assert.equal(moved.headers['quarry-block-height'], '2');
    } finally {
      keys.close();
      await app.close();
      await store.close();
    }
  });

  it('keeps the compressed forms a client asks for: the same answer, compressed once', async () => {
    const store = await openStore(kind);
    // Counted from before the app exists: @fastify/compress takes zlib's functions when registered.
    const gzips = mock.method(zlib, 'gzipSync');
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000' });
    try {
      const chain = 'pos';
      const [alice, bob] = [addr(chain, 'zip alice'), addr(chain, 'zip bob')];
      const builder = new ChainBuilder(chain, Date.UTC(2026, 2, 1, 12) / 1000, 12);
      builder.block((b) => b.genesis([{ address: alice, amount: coins(chain, 1000) }]));
      // A block a day for 40 days: an answer well over the compression threshold (1 KiB).
      for (let day = 0; day < 40; day++) builder.block((b) => b.transfer(alice, bob, coins(chain, 1)), { gap: 7200 });
      await ingest(store, builder.source());

      const url = '/api/v1/analytics/block-size?chain=pos&window=3650d';
      const get = (headers: Record<string, string> = {}) => t.app.inject({ url, headers: { ...AUTH, ...headers } });
      const plain = await get();
      assert.equal(plain.statusCode, 200, plain.body);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(plain.rawPayload.length > 1024, `an answer of ${plain.rawPayload.length} bytes`);

      const gzip = await get({ 'accept-encoding': 'gzip, deflate' });
      assert.equal(gzip.headers['content-encoding'], 'gzip');
      assert.match(String(gzip.headers['vary']), /accept-encoding/);
      assert.equal(zlib.gunzipSync(gzip.rawPayload).toString(), plain.body);
      assert.equal(gzip.headers['etag'], plain.headers['etag']);
      assert.equal(Number(gzip.headers['content-length']), gzip.rawPayload.length);

      const before = countsByLabel(store);
      const compressions = gzips.mock.callCount();
      const again = await get({ 'accept-encoding': 'gzip, deflate' });
      assert.deepEqual(ranSince(store, before), [], 'the repeated request ran no query of its route');
      assert.equal(gzips.mock.callCount(), compressions, 'nor compressed it again');
      assert.ok(again.rawPayload.equals(gzip.rawPayload));
      assert.equal((await get({ 'accept-encoding': 'gzip', 'if-none-match': String(plain.headers['etag']) })).statusCode, 304);

      // Brotli is preferred when accepted as much as gzip, as @fastify/compress chooses.
      const br = await get({ 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.equal(zlib.brotliDecompressSync(br.rawPayload).toString(), plain.body);
      assert.equal((await get({ 'accept-encoding': 'br;q=0.1, gzip' })).headers['content-encoding'], 'gzip');
      assert.equal((await get({ 'accept-encoding': 'identity' })).headers['content-encoding'], undefined);
      assert.equal((await get()).body, plain.body);
    } finally {
      gzips.mock.restore();
      await t.close();
      await store.close();
    }
  });

  it('keeps nothing when QUARRY_RESPONSE_CACHE_MB is 0', async () => {
    const store = await openStore(kind);
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000', QUARRY_RESPONSE_CACHE_MB: '0' });
    try {
      const get = () => t.app.inject({ url: '/api/v1/analytics/block-size', headers: AUTH });
      assert.equal((await get()).statusCode, 200);
      const before = statements(store);
      await get();
      assert.ok(statements(store) > before);
      // The state is read once a request, for the freshness headers: the cache asks for nothing more.
      assert.equal(store.stats().get('api.snapshot')?.count, 2, 'one state read a request');
    } finally {
      await t.close();
      await store.close();
    }
  });

  it('keeps an answer under its normalised request: junk parameters and equivalent spellings are one entry', async () => {
    const store = await openStore(kind);
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000' });
    try {
      await twoBlocks(store, 'key');
      const get = (url: string) => t.app.inject({ url, headers: AUTH });
      const stats = () => t.app.snapshotCacheStats();

      // block-size: chain defaults to pos, window to 30d.
      const first = await get('/api/v1/analytics/block-size');
      assert.equal(first.statusCode, 200, first.body);
      assert.equal(first.json().window_days, 30);
      assert.equal(stats().entries, 1);
      const spellings = [
        '/api/v1/analytics/block-size?window=30d',
        '/api/v1/analytics/block-size?chain=pos&window=30d',
        '/api/v1/analytics/block-size?window=30d&chain=pos',
        '/api/v1/analytics/block-size/?chain=pos',
        '/api/v1/analytics/block-size?utm_source=news&window=30d&_=1767225600000&callback=x',
        '/api/v1/analytics/block-size?cursor=abc&page=9&chain=pos',
      ];
      for (const url of spellings) {
        const before = countsByLabel(store);
        const res = await get(url);
        assert.equal(res.body, first.body, url);
        assert.deepEqual(ranSince(store, before), [], `${url} ran no query of its route`);
      }
      // A flood of made-up parameters makes no entry.
      for (let i = 0; i < 200; i++) assert.equal((await get(`/api/v1/analytics/block-size?junk${i}=${i}&n=${i}`)).statusCode, 200);
      assert.deepEqual({ entries: stats().entries, hits: stats().hits, misses: stats().misses }, { entries: 1, hits: spellings.length + 200, misses: 1 });

      // Another value of a declared parameter is another answer.
      assert.equal((await get('/api/v1/analytics/block-size?window=2d')).json().window_days, 2);
      assert.equal(stats().entries, 2);

      // Numbers as coerced (050 is 50, the default), booleans spelled true/1 and false/0/absent alike.
      const leaderboard = await get('/api/v1/analytics/whales/leaderboard?limit=050');
      assert.equal(leaderboard.statusCode, 200, leaderboard.body);
      const cohorts = await get('/api/v1/analytics/supply/cohorts?individuals_only=1');
      assert.equal(cohorts.statusCode, 200, cohorts.body);
      assert.equal(stats().entries, 4);
      for (const url of [
        '/api/v1/analytics/whales/leaderboard',
        '/api/v1/analytics/whales/leaderboard?limit=50&chain=pos',
        '/api/v1/analytics/supply/cohorts?individuals_only=true',
      ]) {
        const before = countsByLabel(store);
        assert.equal((await get(url)).statusCode, 200);
        assert.deepEqual(ranSince(store, before), [], `${url} ran no query of its route`);
      }
      assert.equal((await get('/api/v1/analytics/supply/cohorts?individuals_only=0')).statusCode, 200);
      assert.equal((await get('/api/v1/analytics/supply/cohorts?individuals_only=false')).statusCode, 200);
      assert.equal((await get('/api/v1/analytics/supply/cohorts')).statusCode, 200);
      assert.equal(stats().entries, 5, 'false, 0 and the default are one entry');

      // A bad value is still refused, naming the parameter, and keeps nothing.
      const bad = await get('/api/v1/analytics/block-size?window=30d&chain=btc');
      assert.equal(bad.statusCode, 400);
      assert.equal(stats().entries, 5);
    } finally {
      await t.close();
      await store.close();
    }
  });

  it('recomputes for Cache-Control: no-cache from operator keys only', async () => {
    const store = await openStore(kind);
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000' });
    try {
      await twoBlocks(store, 'no-cache');
      const { key } = await issueKey(store, 'ordinary client');
      await t.keys.refresh();
      const url = '/api/v1/analytics/block-size?window=3650d';
      const issued = { authorization: `Bearer ${key}` };
      const first = await t.app.inject({ url, headers: issued });
      assert.equal(first.statusCode, 200, first.body);

      // An issued key cannot make the server compute at will.
      for (const cacheControl of ['no-cache', 'no-cache, no-store, max-age=0', 'max-age=0']) {
        const before = countsByLabel(store);
        const res = await t.app.inject({ url, headers: { ...issued, 'cache-control': cacheControl, pragma: 'no-cache' } });
        assert.equal(res.body, first.body);
        assert.deepEqual(ranSince(store, before), [], `${cacheControl} from an issued key ran no query of its route`);
      }

      // The operator's key (QUARRY_API_KEYS) may: the answer is computed anew, and kept.
      const before = countsByLabel(store);
      const recomputed = await t.app.inject({ url, headers: { ...AUTH, 'cache-control': 'no-cache' } });
      assert.equal(recomputed.body, first.body);
      assert.ok(ranSince(store, before).length > 0, 'the operator key recomputed the answer');
      assert.equal(t.app.snapshotCacheStats().entries, 1);
    } finally {
      await t.close();
      await store.close();
    }
  });

  it('counts keys, bodies and per-entry overhead in its budget, dropping the least recently used', async () => {
    const store = await openStore(kind);
    const total = 16 * 1024;
    // The analytics' share: the rest is the Addresses API's.
    const budget = total - Math.floor(total * ADDRESS_SHARE);
    const config = { ...loadConfig({ QUARRY_API_KEYS: TEST_KEY, QUARRY_RATE_LIMIT_MAX: '100000', QUARRY_FRESHNESS_MS: '0' }), responseCacheBytes: total };
    const keys = await createKeyVerifier(store, config.apiKeys, 50);
    const app = await buildApp({ config, store, keys, logger: false });
    try {
      await twoBlocks(store, 'budget');
      // What an entry should count, computed here: its key (the route and its parameters in name
      // order), its body (ASCII JSON: a byte a character) and the fixed overhead.
      const sizeOf = (days: number, body: string) =>
        ENTRY_OVERHEAD + JSON.stringify(['/api/v1/analytics/block-size', [], [['chain', 'pos'], ['window', `${days}d`]]]).length + body.length;
      const sizes: number[] = [];
      for (let days = 1; days <= 20; days++) {
        const res = await app.inject({ url: `/api/v1/analytics/block-size?window=${days}d`, headers: AUTH });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['content-encoding'], undefined, 'no compressed form kept');
        sizes.push(sizeOf(days, res.body));
      }
      // The newest entries that fit, newest first.
      let expectedBytes = 0;
      let expectedEntries = 0;
      for (const size of sizes.toReversed()) {
        if (expectedBytes + size > budget) break;
        expectedBytes += size;
        expectedEntries++;
      }
      assert.ok(expectedEntries > 1 && expectedEntries < 20, `${expectedEntries} entries fit`);
      assert.deepEqual(app.snapshotCacheStats().bytes, expectedBytes);
      assert.deepEqual(app.snapshotCacheStats().entries, expectedEntries);

      // The oldest kept answer is still kept; the one before it was dropped.
      const oldestKept = 20 - expectedEntries + 1;
      let before = countsByLabel(store);
      await app.inject({ url: `/api/v1/analytics/block-size?window=${oldestKept}d`, headers: AUTH });
      assert.deepEqual(ranSince(store, before), [], 'kept');
      before = countsByLabel(store);
      await app.inject({ url: `/api/v1/analytics/block-size?window=${oldestKept - 1}d`, headers: AUTH });
      assert.ok(ranSince(store, before).length > 0, 'dropped, so computed');
      assert.ok(app.snapshotCacheStats().bytes <= budget);
    } finally {
      keys.close();
      await app.close();
      await store.close();
    }
  });
});
