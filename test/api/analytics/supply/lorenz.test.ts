import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { close, figures, holdersByDay, ratio } from '../../../support/expected-population.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/supply/lorenz';

describeSeededApp('GET /analytics/supply/lorenz', loadAnalyticsWorld, (s) => {
  for (const chain of ['pos', 'pow'] as const) {
    it(`${chain}: about 100 points of the sorted balances, monotone from (0, 0) to (1, 1), and Gini`, async () => {
      const res = await s.t().app.inject({ url: `${URL}?chain=${chain}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'private, max-age=600');
      const body = res.json();
      const f = figures([...holdersByDay(chain, s.seeded().blocks[chain]).values()].at(-1)!.map((h) => h.balance));
      assert.equal(body.holders, f.holders);
      close(body.gini, f.gini, 'gini');
      const points: { p_holders: number; p_supply: number }[] = body.points;
      assert.ok(points.length >= 90 && points.length <= 101, `${points.length} points`);
      assert.deepEqual(points[0], { p_holders: 0, p_supply: 0 });
      assert.deepEqual(points.at(-1), { p_holders: 1, p_supply: 1 });
      for (let i = 1; i < points.length; i++) {
        assert.ok(points[i]!.p_holders > points[i - 1]!.p_holders && points[i]!.p_supply >= points[i - 1]!.p_supply, `monotone at ${i}`);
        // Below the diagonal: the poorest hold less than their share of holders.
        assert.ok(points[i]!.p_supply <= points[i]!.p_holders + 1e-12);
        // Each point is the prefix sum of the sorted balances at its rank.
        const rank = Math.round(points[i]!.p_holders * f.holders);
        close(points[i]!.p_supply, ratio(f.sorted.slice(0, rank).reduce((a, b) => a + b, 0n), f.supply), `point ${i}`);
      }
    });
  }
});

describeSeededApp('GET /analytics/supply/lorenz on an empty store', emptyStore, (s) => {
  it('answers no points', async () => {
    const body = (await s.t().app.inject({ url: `${URL}?chain=pow`, headers: AUTH })).json();
    assert.deepEqual(body, { chain: 'pow', network: 'mainnet', holders: 0, points: [], gini: 0 });
  });
});
