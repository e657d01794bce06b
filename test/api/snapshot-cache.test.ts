/**
 * Analytics answers kept per database snapshot (src/api/plugins/snapshot-cache.ts): a repeated
 * request runs no query of its route, a committed block makes the next answer include it, routes
 * that read the clock are computed every time, and the cache can be turned off.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ingest } from '../../src/ingest/pipeline.ts';
import type { Store } from '../../src/store/store.ts';
import { AUTH, buildTestApp } from '../support/app.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';

/** Statements the store ran, the snapshot question aside. */
const statements = (store: Store) => [...store.stats()].filter(([label]) => label !== 'api.snapshot').reduce((n, [, s]) => n + s.count, 0);

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

      const before = statements(store);
      const again = await get();
      assert.equal(statements(store), before, 'the repeated request ran no query of its route');
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
