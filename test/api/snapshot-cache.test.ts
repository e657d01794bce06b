/**
 * Analytics answers kept per database snapshot (src/api/plugins/snapshot-cache.ts): a repeated
 * request runs no query of its route, a committed block makes the next answer include it, routes
 * that read the clock are computed every time, compressed forms are kept with the answer, and the
 * cache can be turned off.
 */
import assert from 'node:assert/strict';
import { it, mock } from 'node:test';
import zlib from 'node:zlib';
import { ingest } from '../../src/ingest/pipeline.ts';
import type { Store } from '../../src/store/store.ts';
import { AUTH, buildTestApp } from '../support/app.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';

/** Labels the cache and the store's own availability check run, not a route's queries. */
const NOT_ROUTE = new Set(['api.snapshot', 'store.ping']);

/** Statements the store ran, the snapshot question and availability checks aside. */
const statements = (store: Store) => [...store.stats()].filter(([label]) => !NOT_ROUTE.has(label)).reduce((n, [, s]) => n + s.count, 0);

/** Statement counts by label, to name what ran between two moments. */
const countsByLabel = (store: Store) => new Map([...store.stats()].filter(([label]) => !NOT_ROUTE.has(label)).map(([label, s]) => [label, s.count]));

/** The labels that ran since `before` (a snapshot of countsByLabel). */
const ranSince = (store: Store, before: Map<string, number>) => [...countsByLabel(store)].filter(([label, n]) => n > (before.get(label) ?? 0)).map(([label]) => label);

describeEachStore('answers kept per database snapshot', (_getStore, kind) => {
  it('repeats an answer without its queries until a block commits, then answers with the block', async () => {
    const store = await openTestStore(kind);
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

      // Health reads the clock (its lag): computed at every request.
      const health = () => t.app.inject({ url: '/api/v1/analytics/network/health', headers: AUTH });
      assert.equal((await health()).statusCode, 200);
      const beforeHealth = statements(store);
      await health();
      assert.ok(statements(store) > beforeHealth, 'health ran its queries again');
    } finally {
      await t.close();
      await store.close();
    }
  });

  it('keeps the compressed forms a client asks for: the same answer, compressed once', async () => {
    const store = await openTestStore(kind);
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
    const store = await openTestStore(kind);
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '100000', QUARRY_RESPONSE_CACHE_MB: '0' });
    try {
      const get = () => t.app.inject({ url: '/api/v1/analytics/block-size', headers: AUTH });
      assert.equal((await get()).statusCode, 200);
      const before = statements(store);
      await get();
      assert.ok(statements(store) > before);
      assert.equal(store.stats().get('api.snapshot'), undefined, 'not even the snapshot is asked');
    } finally {
      await t.close();
      await store.close();
    }
  });
});
