import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH, buildTestApp } from '../../../support/app.ts';
import { loadAnalyticsWorld, NETWORK } from '../../../support/analytics-world.ts';
import { dailyFigures, feePercentilesItem, lastDays } from '../../../support/expected-network.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import { openTestStore } from '../../../support/stores.ts';

describeSeededApp('GET /analytics/fees/percentiles', loadAnalyticsWorld, (s, kind) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/fees/percentiles${query}`, headers: AUTH });

  it('answers exact nearest-rank percentiles, the largest fee and the sum over every fee of each day, the open day included', async () => {
    for (const chain of ['pos', 'pow'] as const) {
      const res = await get(`?chain=${chain}&window=10d`);
      assert.equal(res.statusCode, 200, res.body);
      const items = lastDays(dailyFigures(s.seeded().blocks[chain]), 10).map(([day, d]) => feePercentilesItem(day, d));
      assert.ok(items.length >= 4 && items.every((i) => i.tx_count > 0), 'several days with fees');
      assert.notEqual(items[0]!.fee_p50, items[0]!.fee_p99, 'the fixture’s fees spread');
      assert.deepEqual(res.json(), { items, count: items.length, chain, network: NETWORK[chain], window_days: 10 });
    }
  });

  it('the default window is 30 days', async () => {
    assert.equal((await get('')).json().window_days, 30);
  });

  it('answers an empty list on an empty store, 400 for bad parameters', async () => {
    const store = await openTestStore(kind);
    const t = await buildTestApp(store);
    try {
      const res = await t.app.inject({ url: '/api/v1/analytics/fees/percentiles', headers: AUTH });
      assert.deepEqual(res.json(), { items: [], count: 0, chain: 'pos', network: 'testnet', window_days: 30 });
      for (const query of ['?window=3650x', '?chain=POS', '?window=4000d']) {
        assert.equal((await t.app.inject({ url: `/api/v1/analytics/fees/percentiles${query}`, headers: AUTH })).statusCode, 400, query);
      }
    } finally {
      await t.close();
      await store.close();
    }
  });
});
