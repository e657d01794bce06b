import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { close, dayDiff, figures, holdersByDay, pct } from '../../../support/expected-population.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/supply/summary';

describeSeededApp('GET /analytics/supply/summary', loadAnalyticsWorld, (s) => {
  for (const chain of ['pos', 'pow'] as const) {
    it(`${chain}: holders, supply held, the top ten and dormancy at the latest block`, async () => {
      const res = await s.t().app.inject({ url: `${URL}?chain=${chain}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'private, max-age=300');
      const body = res.json();
      const byDay = holdersByDay(chain, s.seeded().blocks[chain]);
      const today = [...byDay.keys()].at(-1)!;
      const holders = byDay.get(today)!;
      const f = figures(holders.map((h) => h.balance));
      const dormant = holders.filter((h) => dayDiff(h.lastDay, today) >= 365);
      assert.equal(body.holders, f.holders);
      assert.equal(body.total_supply, f.supply.toString());
      assert.equal(body.top10_supply, f.top(10).toString());
      close(body.top10_pct, pct(f.top(10), f.supply), 'top10_pct');
      assert.equal(body.dormant_holders_1y, dormant.length);
      close(body.dormant_supply_1y_pct, pct(dormant.reduce((a, h) => a + h.balance, 0n), f.supply), 'dormant pct');
      // A few days of history cannot show a year of dormancy.
      assert.equal(body.is_sparse, true);
    });
  }
});

describeSeededApp('GET /analytics/supply/summary on an empty store', emptyStore, (s) => {
  it('answers zeros and is_sparse', async () => {
    const body = (await s.t().app.inject({ url: URL, headers: AUTH })).json();
    assert.deepEqual(body, {
      chain: 'pos', network: 'testnet', holders: 0, total_supply: '0', top10_supply: '0', top10_pct: 0,
      dormant_holders_1y: 0, dormant_supply_1y_pct: 0, is_sparse: true,
    });
  });
});
