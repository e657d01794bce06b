import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { close, coins, lastDays, pct, QRYSM_BEACON, seedStakingFromQrysm } from '../../../support/expected-staking.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import { startFakeBeacon } from '../../../fakes/beacon/server.ts';
import { syncStaking } from '../../../../src/ingest/staking-sync.ts';
import { createBeaconClient } from '../../../../src/sources/beacon/client.ts';

// The staking answers when the beacon node is qrysm (QRL 2.0's consensus client), from the fake's model.
describeSeededApp('staking analytics from a qrysm beacon node', seedStakingFromQrysm, (s) => {
  const get = (url: string) => s.t().app.inject({ url: `/api/v1${url}`, headers: AUTH });

  it('daily: active validators, stake and Nakamoto 33% of each day', async () => {
    const body = (await get('/analytics/staking/daily')).json();
    const expected = s.seeded().days;
    assert.deepEqual(expected.map((d) => d.day), ['2024-03-01', '2024-03-02', '2024-03-03']);
    assert.deepEqual(
      body.items.map((i: { day: string; active_validators: number; total_staked_quanta: string; nakamoto_33: number }) => [i.day, i.active_validators, i.total_staked_quanta, i.nakamoto_33]),
      expected.map((d) => [d.day, d.activeValidators, coins(d.totalStaked, 18), d.nakamoto33]),
    );
    // 40,000-quanta validators (one of each four 39,000): qrysm's MAX_EFFECTIVE_BALANCE, not Ethereum's 32.
    assert.equal(expected.at(-1)!.totalStaked, (9n * 40_000n + 3n * 39_000n) * 10n ** 18n);
  });

  it('apr-daily: 365 × the net rewards over the stake, and the validators whose net was positive', async () => {
    const body = (await get('/analytics/staking/apr-daily')).json();
    const expected = s.seeded().days;
    assert.equal(body.items.length, expected.length);
    body.items.forEach((item: { day: string; apr_pct: number; rewarded_validators: number }, i: number) => {
      const d = expected[i]!;
      assert.equal(item.day, d.day);
      assert.ok(close(item.apr_pct, pct(d.rewards * 365n, d.totalStaked)), `${d.day}: ${item.apr_pct}`);
      assert.equal(item.rewarded_validators, d.rewardedValidators, d.day);
    });
    // The slashing's initial penalty (40,000 ÷ MIN_SLASHING_PENALTY_QUOTIENT 32 = 1,250 quanta) outweighs the day.
    assert.deepEqual(body.items.map((i: { apr_pct: number }) => i.apr_pct < 0), [false, false, true]);
  });

  it('slashings-daily: the validator slashed at epoch 14', async () => {
    const body = (await get('/analytics/staking/slashings-daily')).json();
    assert.deepEqual(body.items, lastDays(s.seeded().days, 365).map((d) => ({ day: d.day, slashings: d.slashings })));
    assert.deepEqual(body.items.map((i: { slashings: number }) => i.slashings), [0, 0, 1]);
  });

  it('dashboard: validators_count is the head state’s active validators', async () => {
    const head = s.seeded().model.validatorsAt(QRYSM_BEACON.headSlot);
    const body = (await get('/analytics/dashboard/summary')).json();
    assert.equal(body.chains.pos.validators_count, head.filter((v) => v.status.startsWith('active_')).length);
    assert.equal(body.chains.pos.validators_count, 12);
  });

  it('network health: the staking sync is ok, then stopped with the route and node while a route is missing', async () => {
    const key = (body: { chains: Record<string, unknown> }) => Object.keys(body.chains).find((k) => k.startsWith('pos:'))!;
    let body = (await get('/analytics/network/health')).json();
    let sync = body.chains[key(body)].staking_sync;
    assert.equal(sync.status, 'ok');
    assert.equal(sync.error, null);
    assert.match(sync.last_success_time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    assert.equal(body.chains[Object.keys(body.chains).find((k) => k.startsWith('pow:'))!].staking_sync, null);

    const beacon = await startFakeBeacon(QRYSM_BEACON);
    try {
      // An operator forcing Ethereum's prefix on a qrysm node: its router has no /eth/v1 routes.
      await assert.rejects(syncStaking(s.store(), createBeaconClient({ url: beacon.url, api: 'eth' })), /GET \/eth\/v1\/beacon\/genesis: the beacon node at http:\/\/127\.0\.0\.1:\d+ has no such route/);
      body = (await get('/analytics/network/health')).json();
      sync = body.chains[key(body)].staking_sync;
      assert.equal(sync.status, 'stopped');
      assert.equal(sync.error.route, 'GET /eth/v1/beacon/genesis');
      assert.equal(sync.error.node, beacon.url);
      assert.match(sync.error.message, /has no such route \(HTTP 404 "404 page not found"\)/);
      // A run that gets through clears it.
      await syncStaking(s.store(), createBeaconClient({ url: beacon.url }));
      body = (await get('/analytics/network/health')).json();
      assert.equal(body.chains[key(body)].staking_sync.status, 'ok');
      assert.equal(body.chains[key(body)].staking_sync.error, null);
    } finally {
      await beacon.close();
    }
  });
});
