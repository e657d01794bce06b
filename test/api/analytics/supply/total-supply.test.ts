import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH, buildTestApp } from '../../../support/app.ts';
import { daysBetween, loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { supplyDays } from '../../../support/expected-supply.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import { openTestStore } from '../../../support/stores.ts';

const PLANCK_PER_SHOR = 10n ** 9n;

/** The `days` days ending with the later tip's day, from the earlier chain's first day at the earliest. */
function expected(w: AnalyticsWorld, days: number) {
  const pow = new Map(supplyDays(w.blocks.pow).map((d) => [d.day, d]));
  const pos = new Map(supplyDays(w.blocks.pos).map((d) => [d.day, d]));
  const all = daysBetween([...pow.keys(), ...pos.keys()].sort()[0]!, [...pow.keys(), ...pos.keys()].sort().at(-1)!);
  return all.slice(Math.max(0, all.length - days)).map((day) => ({
    day,
    pow_minted_shor: (pow.get(day)?.minted ?? 0n).toString(),
    pos_minted_shor: ((pos.get(day)?.minted ?? 0n) / PLANCK_PER_SHOR).toString(),
    pow_burned_via_migration_shor: (pow.get(day)?.migrationBurned ?? 0n).toString(),
    pos_minted_via_migration_shor: ((pos.get(day)?.migrationMinted ?? 0n) / PLANCK_PER_SHOR).toString(),
    pow_block_count: pow.get(day)?.blocks ?? 0,
    pos_block_count: pos.get(day)?.blocks ?? 0,
  }));
}

describeSeededApp('GET /analytics/total_supply', loadAnalyticsWorld, (s, kind) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/total_supply${query}`, headers: AUTH });

  it('answers both chains’ days in shor: minted, migration burns and mints, blocks (default 90 days)', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const items = expected(s.seeded(), 90);
    assert.ok(items.some((i) => i.pow_burned_via_migration_shor !== '0') && items.some((i) => i.pos_minted_via_migration_shor !== '0'), 'the world migrates');
    assert.deepEqual(res.json(), { items, days: 90 });
  });

  it('cuts the window to whole days ending with the later tip’s day', async () => {
    for (const [window, days] of [['2d', 2], ['24h', 1], ['5d', 5], ['1w', 7]] as const) {
      assert.deepEqual((await get(`?window=${window}`)).json(), { items: expected(s.seeded(), days), days }, window);
    }
  });

  it('refuses a malformed window, naming it', async () => {
    for (const query of ['?window=0d', '?window=11y', '?window=abc', '?window=all']) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === 'window'), res.body);
    }
  });

  it('answers an empty list on an empty store', async () => {
    const store = await openTestStore(kind);
    const t = await buildTestApp(store);
    try {
      const res = await t.app.inject({ url: '/api/v1/analytics/total_supply', headers: AUTH });
      assert.deepEqual(res.json(), { items: [], days: 90 });
    } finally {
      await t.close();
      await store.close();
    }
  });
});
