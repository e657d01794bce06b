import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { biggestOf, whaleOracle, windowDays } from '../../../support/expected-whales.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/whales/biggest';

describeSeededApp('GET /analytics/whales/biggest', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('answers the 20 largest user transactions of 30 days, pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const o = whaleOracle(s.seeded(), 'pos');
    const items = biggestOf(o, windowDays(o, 30), 20);
    assert.equal(items.length, 20);
    assert.deepEqual(res.json(), { items, count: 20, chain: 'pos', network: s.t().config.networks.pos, days: 30 });
  });

  it('answers pow for several windows and limits, one day and the largest limit included', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const o = whaleOracle(s.seeded(), chain);
      for (const [window, days, limit] of [['1d', 1, 5], ['48h', 2, 100], ['3d', 3, 1], ['7d', 7, 37]] as const) {
        const res = await get(`?chain=${chain}&window=${window}&limit=${limit}`);
        assert.equal(res.statusCode, 200, res.body);
        const items = biggestOf(o, windowDays(o, days), limit);
        assert.deepEqual(res.json(), { items, count: items.length, chain, network: s.t().config.networks[chain], days }, `${chain} ${window} ${limit}`);
      }
    }
  });

  it('refuses a bad limit, window or chain, naming it', async () => {
    for (const [query, param] of [['?limit=0', 'limit'], ['?limit=101', 'limit'], ['?limit=x', 'limit'], ['?window=5x', 'window'], ['?window=all', 'window'], ['?window=11y', 'window'], ['?chain=btc', 'chain']]) {
      const res = await get(query!);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), `${query}: ${res.body}`);
    }
  });
});

describeSeededApp('GET /analytics/whales/biggest on an empty store', async () => null, (s) => {
  it('answers an empty list', async () => {
    const body = (await s.t().app.inject({ url: `${URL}?chain=pow`, headers: AUTH })).json();
    assert.deepEqual(body, { items: [], count: 0, chain: 'pow', network: s.t().config.networks.pow, days: 30 });
  });
});
