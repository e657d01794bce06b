import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { AUTH } from '../../../support/app.ts';
import { daysBetween, loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { stakingWindowDays } from '../../../support/expected-staking.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import { startFakeBeacon, type FakeBeacon } from '../../../fakes/beacon/server.ts';
import { createBeaconClient } from '../../../../src/sources/beacon/client.ts';
import { syncStaking } from '../../../../src/ingest/staking-sync.ts';
import type { Store } from '../../../../src/store/store.ts';

describeSeededApp('GET /analytics/staking/slashings-daily', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/staking/slashings-daily${query}`, headers: AUTH });

  it('answers the validators slashed on each day, zeros included', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const expected = stakingWindowDays(s.seeded(), 365).map((d) => ({ day: d.day, slashings: d.slashings }));
    assert.deepEqual(res.json(), { items: expected, count: expected.length, network: 'testnet', window_days: 365 });
    assert.ok(expected.some((d) => d.slashings > 0) && expected.some((d) => d.slashings === 0));
  });

  it('cuts the window to whole days ending with the latest staking day', async () => {
    for (const [window, days] of [['2d', 2], ['36h', 2], ['1w', 7]] as const) {
      const body = (await get(`?window=${window}`)).json();
      assert.deepEqual(body.items, stakingWindowDays(s.seeded(), days).map((d) => ({ day: d.day, slashings: d.slashings })), window);
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

// Staking days synchronised from a beacon node, with a day missing from the middle (a gap in the sync).
const GENESIS = Date.parse('2024-03-01T20:00:00Z') / 1000;
async function syncFromFakeBeacon(store: Store) {
  const beacon: FakeBeacon = await startFakeBeacon({
    genesisTime: GENESIS, secondsPerSlot: 1200, slotsPerEpoch: 3, validators: 8, headSlot: 3 * 60 + 1, finalizedEpoch: 58, slashedAt: { 3: 30 },
  });
  try {
    await syncStaking(store, createBeaconClient({ url: beacon.url, backoffMs: 1 }));
  } finally {
    await beacon.close();
  }
  await store.query('test.gap', sql`DELETE FROM staking_daily WHERE chain = 'pos' AND day = '2024-03-02'`);
  return null;
}

describeSeededApp('GET /analytics/staking/slashings-daily from a beacon node', syncFromFakeBeacon, (s) => {
  it('zero-fills a day without figures; the slashing of epoch 30 is on 2024-03-03', async () => {
    const body = (await s.t().app.inject({ url: '/api/v1/analytics/staking/slashings-daily?window=30d', headers: AUTH })).json();
    const days = daysBetween('2024-03-01', '2024-03-04');
    assert.deepEqual(body.items, days.map((day) => ({ day, slashings: day === '2024-03-03' ? 1 : 0 })));
    // The other series leave the missing day out, and the slashing day's APR is negative.
    const apr = (await s.t().app.inject({ url: '/api/v1/analytics/staking/apr-daily?window=30d', headers: AUTH })).json();
    assert.deepEqual(apr.items.map((i: { day: string }) => i.day), ['2024-03-01', '2024-03-03', '2024-03-04']);
    assert.deepEqual(apr.items.map((i: { apr_pct: number }) => i.apr_pct < 0), [false, true, false]);
  });
});

describeSeededApp('GET /analytics/staking/slashings-daily on an empty store', async () => null, (s) => {
  it('answers the empty shape', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/staking/slashings-daily', headers: AUTH });
    assert.deepEqual(res.json(), { items: [], count: 0, network: 'testnet', window_days: 365 });
  });
});
