import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { close, entitySet, figures, holdersByDay, pct } from '../../../support/expected-population.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/supply/entity-distribution';

describeSeededApp('GET /analytics/supply/entity-distribution', loadAnalyticsWorld, (s) => {
  for (const chain of ['pos', 'pow'] as const) {
    it(`${chain}: classes partition the holders; concentration without entities`, async () => {
      const res = await s.t().app.inject({ url: `${URL}?chain=${chain}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'private, max-age=600');
      const body = res.json();
      const holders = [...holdersByDay(chain, s.seeded().blocks[chain]).values()].at(-1)!;
      const all = figures(holders.map((h) => h.balance));
      const entities = await entitySet(s.store(), chain, s.seeded().blocks[chain]);
      const individuals = figures(holders.filter((h) => !entities.has(h.address)).map((h) => h.balance));
      assert.equal(body.holders, all.holders);
      assert.equal(body.classes.reduce((n: number, c: { holders: number }) => n + c.holders, 0), all.holders);
      close(body.classes.reduce((n: number, c: { supply_pct: number }) => n + c.supply_pct, 0), 100, 'shares sum to 100');
      const pcts = body.classes.map((c: { supply_pct: number }) => c.supply_pct);
      assert.deepEqual([...pcts].sort((a, b) => b - a), pcts);
      assert.ok(body.classes.some((c: { wallet_class: string }) => c.wallet_class === 'exchange'), 'curated exchanges hold coins');
      assert.ok(!body.classes.some((c: { wallet_class: string }) => c.wallet_class === 'protocol'), 'sentinels are not holders');
      const x = body.excl_entities;
      assert.equal(x.holders, individuals.holders);
      assert.ok(x.holders < all.holders);
      close(x.supply_pct_of_total, pct(individuals.supply, all.supply), 'supply_pct_of_total');
      close(x.top10_pct, pct(individuals.top(10), individuals.supply), 'top10_pct');
      close(x.gini, individuals.gini, 'gini');
      assert.equal(x.nakamoto, individuals.nakamoto);
    });
  }
});

describeSeededApp('GET /analytics/supply/entity-distribution on an empty store', emptyStore, (s) => {
  it('answers no classes', async () => {
    const body = (await s.t().app.inject({ url: URL, headers: AUTH })).json();
    assert.deepEqual(body, {
      chain: 'pos', network: 'testnet', holders: 0, classes: [],
      excl_entities: { holders: 0, supply_pct_of_total: 0, top10_pct: 0, gini: 0, nakamoto: 0 },
    });
  });
});
