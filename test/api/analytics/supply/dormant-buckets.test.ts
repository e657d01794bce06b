import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { AGE_LABELS, ageLabel, close, dayDiff, holdersByDay, pct } from '../../../support/expected-population.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/supply/dormant-buckets';

describeSeededApp('GET /analytics/supply/dormant-buckets', loadAnalyticsWorld, (s) => {
  for (const chain of ['pos', 'pow'] as const) {
    it(`${chain}: holders and supply by days since their last activity`, async () => {
      const res = await s.t().app.inject({ url: `${URL}?chain=${chain}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      const byDay = holdersByDay(chain, s.seeded().blocks[chain]);
      const today = [...byDay.keys()].at(-1)!;
      const holders = byDay.get(today)!;
      const supply = holders.reduce((a, h) => a + h.balance, 0n);
      assert.equal(body.count, 5);
      assert.deepEqual(body.items.map((i: { bucket: string }) => i.bucket), AGE_LABELS);
      for (const item of body.items) {
        const inBucket = holders.filter((h) => ageLabel(dayDiff(h.lastDay, today)) === item.bucket);
        assert.equal(item.holders, inBucket.length, item.bucket);
        close(item.total_balance_pct, pct(inBucket.reduce((a, h) => a + h.balance, 0n), supply), item.bucket);
      }
      assert.equal(body.items.reduce((n: number, i: { holders: number }) => n + i.holders, 0), holders.length);
      // A few days of history: everyone was active within the month, but not all today.
      assert.equal(body.items[0].holders, holders.length);
    });
  }

  it('refuses an unknown chain, naming it', async () => {
    const res = await s.t().app.inject({ url: `${URL}?chain=eth`, headers: AUTH });
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().errors.some((e: { param: string }) => e.param === 'chain'), res.body);
  });
});

describeSeededApp('GET /analytics/supply/dormant-buckets on an empty store', emptyStore, (s) => {
  it('answers an empty list', async () => {
    const body = (await s.t().app.inject({ url: URL, headers: AUTH })).json();
    assert.deepEqual(body, { items: [], count: 0, chain: 'pos', network: 'testnet' });
  });
});
