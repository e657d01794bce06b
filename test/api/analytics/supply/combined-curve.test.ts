import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH, buildTestApp } from '../../../support/app.ts';
import { daysBetween, loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { coinsNumber, supplyDays, type SupplyDay } from '../../../support/expected-supply.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import { openTestStore } from '../../../support/stores.ts';

describeSeededApp('GET /analytics/supply/combined-curve', loadAnalyticsWorld, (s, kind) => {
  it('answers both chains side by side in coins over their whole history', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/supply/combined-curve', headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    const pow = supplyDays(s.seeded().blocks.pow);
    const pos = supplyDays(s.seeded().blocks.pos);
    const first = [pow[0]!.day, pos[0]!.day].sort()[0]!;
    const last = [pow.at(-1)!.day, pos.at(-1)!.day].sort()[1]!;
    assert.ok(pow[0]!.day < pos[0]!.day, 'pos starts later');
    // A chain's running total is 0 before its first day and stays at its last figure after its tip.
    const at = (days: SupplyDay[], day: string) => {
      const d = days.find((x) => x.day === day);
      const before = days.filter((x) => x.day <= day).at(-1);
      return { minted: d?.minted ?? 0n, cumulative: before?.cumulative ?? 0n };
    };
    const items = daysBetween(first, last).map((day) => ({
      day,
      pow_minted_coins: coinsNumber(at(pow, day).minted, 9),
      pos_minted_coins: coinsNumber(at(pos, day).minted, 18),
      pow_cumulative_coins: coinsNumber(at(pow, day).cumulative, 9),
      pos_cumulative_coins: coinsNumber(at(pos, day).cumulative, 18),
    }));
    assert.deepEqual(res.json(), { items, count: items.length });
  });

  it('ignores a window and answers an empty list on an empty store', async () => {
    const store = await openTestStore(kind);
    const t = await buildTestApp(store);
    try {
      const res = await t.app.inject({ url: '/api/v1/analytics/supply/combined-curve?window=7d', headers: AUTH });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { items: [], count: 0 });
    } finally {
      await t.close();
      await store.close();
    }
  });
});
