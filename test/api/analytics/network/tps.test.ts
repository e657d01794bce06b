import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AUTH, buildTestApp, type TestApp } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { expectedTps } from '../../../support/expected-status.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import { openTestStore, storeKinds } from '../../../support/stores.ts';
import type { Store } from '../../../../src/store/store.ts';

const GENERATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

describeSeededApp('GET /analytics/network/tps', loadAnalyticsWorld, (s) => {
  it('answers each chain’s transactions per second over 1 h, 24 h and 7 d ending at its latest block', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/network/tps', headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.match(body.generated_at, GENERATED_AT);
    const items = (['pow', 'pos'] as const).map((chain) => ({ chain, network: s.t().config.networks[chain], ...expectedTps(s.seeded().blocks[chain]) }));
    assert.deepEqual(body, { items, count: 2, generated_at: body.generated_at });
    for (const item of items) assert.ok(item.tps_1h > 0 && item.tps_24h > 0 && item.tps_7d > 0, 'the world has traffic in every window');
  });

  it('puts the generation time near the wall clock', async () => {
    const before = Date.now();
    const body = (await s.t().app.inject({ url: '/api/v1/analytics/network/tps', headers: AUTH })).json();
    const at = Date.parse(body.generated_at);
    assert.ok(at >= before - 1 && at <= Date.now() + 1, body.generated_at);
  });
});

for (const kind of storeKinds()) {
  describe(`GET /analytics/network/tps on an empty store [${kind}]`, () => {
    let store: Store;
    let t: TestApp;
    before(async () => {
      store = await openTestStore(kind);
      t = await buildTestApp(store);
    });
    after(async () => {
      await t.close();
      await store.close();
    });

    it('answers zeros for chains without blocks', async () => {
      const body = (await t.app.inject({ url: '/api/v1/analytics/network/tps', headers: AUTH })).json();
      assert.deepEqual(
        body.items,
        (['pow', 'pos'] as const).map((chain) => ({ chain, network: t.config.networks[chain], tps_1h: 0, tps_24h: 0, tps_7d: 0 })),
      );
      assert.equal(body.count, 2);
      assert.match(body.generated_at, GENERATED_AT);
    });
  });
}
