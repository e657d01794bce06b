import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { close, figures, holdersByDay, pct } from '../../../support/expected-population.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/supply/holders-distribution';

describeSeededApp('GET /analytics/supply/holders-distribution', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  for (const chain of ['pos', 'pow'] as const) {
    it(`${chain}: top shares, Gini and Nakamoto over every holder at the latest block`, async () => {
      const res = await get(chain === 'pos' ? '' : '?chain=pow');
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'private, max-age=600');
      const body = res.json();
      const f = figures([...holdersByDay(chain, s.seeded().blocks[chain]).values()].at(-1)!.map((h) => h.balance));
      assert.ok(f.holders > 100, 'a population worth measuring');
      assert.equal(body.chain, chain);
      assert.equal(body.holders, f.holders);
      assert.equal(body.nakamoto, f.nakamoto);
      close(body.gini, f.gini, 'gini');
      assert.deepEqual(body.distribution.map((d: { bucket: string; rank_threshold: number }) => [d.bucket, d.rank_threshold]),
        [['top_10', 10], ['top_100', 100], ['top_1000', 1000], ['top_10000', 10000]]);
      for (const d of body.distribution) close(d.pct, pct(f.top(d.rank_threshold), f.supply), d.bucket);
      // Shares grow with N and reach 100 once N covers every holder.
      const shares = body.distribution.map((d: { pct: number }) => d.pct);
      assert.deepEqual([...shares].sort((a, b) => a - b), shares);
      if (f.holders <= 10000) close(shares[3], 100, 'top_10000 covers all');
      assert.ok(body.gini > 0 && body.gini < 1);
    });
  }

  it('refuses an unknown chain, naming it', async () => {
    const res = await get('?chain=btc');
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().errors.some((e: { param: string }) => e.param === 'chain'), res.body);
  });
});

describeSeededApp('GET /analytics/supply/holders-distribution on an empty store', emptyStore, (s) => {
  it('answers no holders', async () => {
    const res = await s.t().app.inject({ url: URL, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.holders, 0);
    assert.equal(body.gini, 0);
    assert.equal(body.nakamoto, 0);
    assert.deepEqual(body.distribution.map((d: { pct: number }) => d.pct), [0, 0, 0, 0]);
  });
});
