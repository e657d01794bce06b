import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH, buildTestApp } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { supplyDays } from '../../../support/expected-supply.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import { openTestStore } from '../../../support/stores.ts';

/** The last `days` days of the chain's history (ending with its tip's day), by the definition. */
function expected(w: AnalyticsWorld, chain: 'pow' | 'pos', days: number) {
  const all = supplyDays(w.blocks[chain]);
  return all.slice(Math.max(0, all.length - days)).map((d) => ({
    day: d.day,
    minted_today: d.minted.toString(),
    block_count_today: d.blocks,
    cumulative_minted: d.cumulative.toString(),
  }));
}

describeSeededApp('GET /analytics/supply/curve', loadAnalyticsWorld, (s, kind) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/supply/curve${query}`, headers: AUTH });

  it('answers every day of the history within the default 365 days, pos by default, genesis allocations on the genesis day', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const items = expected(s.seeded(), 'pos', 365);
    assert.ok(supplyDays(s.seeded().blocks.pos).some((d) => d.migrationMinted > 0n), 'the world migrates');
    assert.deepEqual(res.json(), { items, count: items.length, chain: 'pos', days: 365 });
    const pow = (await get('?chain=pow')).json();
    const powItems = expected(s.seeded(), 'pow', 365);
    assert.deepEqual(pow, { items: powItems, count: powItems.length, chain: 'pow', days: 365 });
    assert.ok(BigInt(powItems[0]!.minted_today) >= 65_000_000n * 10n ** 9n, 'the genesis day carries the allocations');
  });

  it('a shorter window starts from the total before it', async () => {
    for (const [window, days] of [['2d', 2], ['24h', 1], ['3d', 3], ['1w', 7]] as const) {
      for (const chain of ['pow', 'pos'] as const) {
        const body = (await get(`?chain=${chain}&window=${window}`)).json();
        assert.deepEqual(body.items, expected(s.seeded(), chain, days), `${chain} ${window}`);
        assert.equal(body.days, days);
      }
    }
  });

  it('refuses a malformed window or chain, naming it', async () => {
    for (const [query, param] of [['?window=0d', 'window'], ['?window=11y', 'window'], ['?window=all', 'window'], ['?chain=btc', 'chain']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });

  it('answers an empty list on an empty store', async () => {
    const store = await openTestStore(kind);
    const t = await buildTestApp(store);
    try {
      const res = await t.app.inject({ url: '/api/v1/analytics/supply/curve?chain=pow&window=30d', headers: AUTH });
      assert.deepEqual(res.json(), { items: [], count: 0, chain: 'pow', days: 30 });
    } finally {
      await t.close();
      await store.close();
    }
  });
});
