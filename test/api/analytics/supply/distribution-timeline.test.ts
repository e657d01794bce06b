import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { close, figures, holdersByDay, pct } from '../../../support/expected-population.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/supply/distribution-timeline';

describeSeededApp('GET /analytics/supply/distribution-timeline', loadAnalyticsWorld, (s) => {
  for (const chain of ['pos', 'pow'] as const) {
    it(`${chain}: each day's figures over the holders at its end (the bulk load closed them after every block was applied)`, async () => {
      const res = await s.t().app.inject({ url: `${URL}?chain=${chain}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'private, max-age=600');
      const body = res.json();
      const byDay = holdersByDay(chain, s.seeded().blocks[chain]);
      assert.equal(body.days, 90);
      assert.equal(body.count, byDay.size);
      assert.deepEqual(body.items.map((i: { day: string }) => i.day), [...byDay.keys()]);
      const distinct = new Set<number>();
      for (const item of body.items) {
        const f = figures(byDay.get(item.day)!.map((h) => h.balance));
        assert.equal(item.holders, f.holders, item.day);
        assert.equal(item.nakamoto, f.nakamoto, item.day);
        close(item.top10_pct, pct(f.top(10), f.supply), `${item.day} top10`);
        close(item.top100_pct, pct(f.top(100), f.supply), `${item.day} top100`);
        close(item.gini, f.gini, `${item.day} gini`);
        close(item.hhi, f.hhi, `${item.day} hhi`);
        close(item.palma, f.palma, `${item.day} palma`);
        distinct.add(item.holders);
      }
      assert.ok(distinct.size > 1, 'the population changes from day to day');
    });
  }

  it('answers a shorter window', async () => {
    const body = (await s.t().app.inject({ url: `${URL}?chain=pow&window=2d`, headers: AUTH })).json();
    assert.equal(body.days, 2);
    assert.equal(body.count, 2);
    assert.deepEqual(body.items.map((i: { day: string }) => i.day), [...holdersByDay('pow', s.seeded().blocks.pow).keys()].slice(-2));
  });

  it('refuses a malformed window, naming it', async () => {
    const res = await s.t().app.inject({ url: `${URL}?window=ten`, headers: AUTH });
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().errors.some((e: { param: string }) => e.param === 'window'), res.body);
  });
});

describeSeededApp('GET /analytics/supply/distribution-timeline on an empty store', emptyStore, (s) => {
  it('answers an empty list', async () => {
    const body = (await s.t().app.inject({ url: URL, headers: AUTH })).json();
    assert.deepEqual(body, { items: [], count: 0, chain: 'pos', network: 'testnet', days: 90 });
  });
});
