import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { AGE_LABELS, ageLabel, close, dayDiff, holdersByDay, pct } from '../../../support/expected-population.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/supply/age-daily';

describeSeededApp('GET /analytics/supply/age-daily', loadAnalyticsWorld, (s) => {
  for (const chain of ['pos', 'pow'] as const) {
    it(`${chain}: per day and bucket, the holders at the day's end by days since their last activity`, async () => {
      const res = await s.t().app.inject({ url: `${URL}?chain=${chain}`, headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      const byDay = holdersByDay(chain, s.seeded().blocks[chain]);
      assert.equal(body.window_days, 365);
      assert.deepEqual(body.buckets, AGE_LABELS);
      assert.equal(body.count, byDay.size * 5);
      const expected = [...byDay.entries()].flatMap(([day, holders]) => {
        const supply = holders.reduce((a, h) => a + h.balance, 0n);
        return AGE_LABELS.map((bucket) => {
          const inBucket = holders.filter((h) => ageLabel(dayDiff(h.lastDay, day)) === bucket);
          return { day, bucket, holders: inBucket.length, pct: pct(inBucket.reduce((a, h) => a + h.balance, 0n), supply) };
        });
      });
      assert.deepEqual(body.items.map((i: { day: string; bucket: string; holders: number }) => [i.day, i.bucket, i.holders]),
        expected.map((e) => [e.day, e.bucket, e.holders]));
      body.items.forEach((item: { balance_pct: number }, i: number) => close(item.balance_pct, expected[i]!.pct, `${expected[i]!.day} ${expected[i]!.bucket}`));
    });
  }

  it('refuses a window over ten years, naming it', async () => {
    const res = await s.t().app.inject({ url: `${URL}?window=4000d`, headers: AUTH });
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().errors.some((e: { param: string }) => e.param === 'window'), res.body);
  });
});

describeSeededApp('GET /analytics/supply/age-daily on an empty store', emptyStore, (s) => {
  it('answers an empty list with the bucket labels', async () => {
    const body = (await s.t().app.inject({ url: URL, headers: AUTH })).json();
    assert.deepEqual(body, { items: [], count: 0, chain: 'pos', network: 'testnet', window_days: 365, buckets: AGE_LABELS });
  });
});
