import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { lastDays, seedStakingFromBeacon, worldStaking } from '../../../support/expected-staking.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import type { Store } from '../../../../src/store/store.ts';

describeSeededApp('GET /analytics/staking/slashings-daily from a beacon node', seedStakingFromBeacon, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/staking/slashings-daily${query}`, headers: AUTH });
  const expected = (days: number) => lastDays(s.seeded().days, days).map((d) => ({ day: d.day, slashings: d.slashings }));

  it('answers the validators whose slashed flag turned true on each day, zeros included', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { items: expected(365), count: 4, network: 'testnet', window_days: 365 });
    assert.deepEqual(expected(365).map((d) => d.slashings), [0, 0, 2, 1]);
  });

  it('cuts the window to whole days ending with the latest staking day', async () => {
    for (const [window, days] of [['2d', 2], ['36h', 2], ['1w', 7]] as const) {
      const body = (await get(`?window=${window}`)).json();
      assert.deepEqual(body.items, expected(days), window);
      assert.equal(body.window_days, days);
    }
  });
});

// The same days with one missing from the middle (a gap in the sync).
async function syncWithGap(store: Store) {
  const seeded = await seedStakingFromBeacon(store);
  await store.query('test.gap', sql`DELETE FROM staking_daily WHERE chain = 'pos' AND day = '2024-03-03'`);
  return seeded;
}

describeSeededApp('GET /analytics/staking/* from a beacon node, a day missing', syncWithGap, (s) => {
  const get = async (path: string) => (await s.t().app.inject({ url: `/api/v1/analytics/staking/${path}?window=30d`, headers: AUTH })).json();
  const days = () => s.seeded().days.map((d) => d.day);

  it('zero-fills every day of the range, the missing one included', async () => {
    const body = await get('slashings-daily');
    assert.deepEqual(body.items, s.seeded().days.map((d) => ({ day: d.day, slashings: d.day === '2024-03-03' ? 0 : d.slashings })));
  });

  // Days inside the window without figures are zero-filled in daily series (ARCHITECTURE.md, "Analytics decisions").
  it('zero-fills the missing day of apr-daily and daily too', async () => {
    const apr = await get('apr-daily');
    assert.deepEqual(apr.items.map((i: { day: string }) => i.day), days());
    assert.deepEqual(apr.items.find((i: { day: string }) => i.day === '2024-03-03'), { day: '2024-03-03', apr_pct: 0, rewarded_validators: 0 });
    const daily = await get('daily');
    assert.deepEqual(daily.items.map((i: { day: string }) => i.day), days());
    assert.deepEqual(daily.items.find((i: { day: string }) => i.day === '2024-03-03'), {
      day: '2024-03-03', active_validators: 0, staking_ratio_pct: 0, nakamoto_33: 0, total_staked_quanta: '0',
    });
  });
});

describeSeededApp('GET /analytics/staking/slashings-daily', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/staking/slashings-daily${query}`, headers: AUTH });

  it('answers every day from pos genesis to the end, and as many slashings as validator rows marked slashed', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const { days, slashedValidators } = worldStaking(s.seeded());
    assert.deepEqual({ ...body, items: undefined }, { items: undefined, count: days.length, network: 'testnet', window_days: 365 });
    assert.deepEqual(body.items.map((i: { day: string }) => i.day), days);
    assert.ok(slashedValidators > 0, 'the world has a slashing');
    assert.equal(body.items.reduce((sum: number, i: { slashings: number }) => sum + i.slashings, 0), slashedValidators);
  });

  it('cuts the window to whole days ending with the latest staking day', async () => {
    const all = (await get('')).json().items;
    for (const [window, days] of [['2d', 2], ['36h', 2], ['1w', 7]] as const) {
      const body = (await get(`?window=${window}`)).json();
      assert.deepEqual(body.items, lastDays(all, days), window);
      assert.deepEqual(body.items.map((i: { day: string }) => i.day), lastDays(worldStaking(s.seeded()).days, days), window);
      assert.equal(body.window_days, days);
    }
  });

  it('answers pow, which has no validators, with the empty shape', async () => {
    assert.deepEqual((await get('?chain=pow&window=7d')).json(), { items: [], count: 0, network: 'mainnet', window_days: 7 });
  });

  it('refuses a malformed window or chain, naming it', async () => {
    for (const [query, param] of [['?window=7x', 'window'], ['?window=0h', 'window'], ['?chain=all', 'chain']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });
});

describeSeededApp('GET /analytics/staking/slashings-daily on an empty store', async () => null, (s) => {
  it('answers the empty shape', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/staking/slashings-daily', headers: AUTH });
    assert.deepEqual(res.json(), { items: [], count: 0, network: 'testnet', window_days: 365 });
  });
});
