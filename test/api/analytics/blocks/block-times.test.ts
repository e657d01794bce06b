import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, NETWORK } from '../../../support/analytics-world.ts';
import { dailyFigures, lastDays } from '../../../support/expected-network.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import { openTestStore } from '../../../support/stores.ts';
import { buildTestApp } from '../../../support/app.ts';

describeSeededApp('GET /analytics/block-times', loadAnalyticsWorld, (s, kind) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/block-times${query}`, headers: AUTH });

  it('answers the mean interval to the parent and the block count of each day', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      for (const [window, days] of [[undefined, 30], ['3d', 3], ['1d', 1]] as const) {
        const res = await get(`?chain=${chain}${window ? `&window=${window}` : ''}`);
        assert.equal(res.statusCode, 200, res.body);
        const items = lastDays(dailyFigures(s.seeded().blocks[chain]), days).map(([day, d]) => ({
          day,
          block_count: d.blocks,
          avg_block_time_seconds: d.intervals.length ? d.intervals.reduce((a, b) => a + b, 0) / d.intervals.length : null,
        }));
        assert.deepEqual(res.json(), { items, count: items.length, chain, network: NETWORK[chain], window_days: days }, `${chain} ${window}`);
      }
    }
  });

  it('answers an empty list on an empty chain, and 400 for a bad window', async () => {
    const store = await openTestStore(kind);
    const t = await buildTestApp(store);
    try {
      const res = await t.app.inject({ url: '/api/v1/analytics/block-times?chain=pow', headers: AUTH });
      assert.deepEqual(res.json(), { items: [], count: 0, chain: 'pow', network: 'mainnet', window_days: 30 });
      assert.equal((await t.app.inject({ url: '/api/v1/analytics/block-times?window=-1d', headers: AUTH })).statusCode, 400);
    } finally {
      await t.close();
      await store.close();
    }
  });
});
