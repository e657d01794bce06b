import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { close, lastDays, pct, seedStakingFromBeacon, worldStaking } from '../../../support/expected-staking.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

interface Item {
  day: string;
  apr_pct: number;
  rewarded_validators: number;
}

describeSeededApp('GET /analytics/staking/apr-daily from a beacon node', seedStakingFromBeacon, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/staking/apr-daily${query}`, headers: AUTH });

  /** 365 × the day's net rewards (slashing penalties included) over its active validators' effective balances. */
  function expectItems(items: Item[], days: number) {
    const expected = lastDays(s.seeded().days, days);
    assert.deepEqual(items.map((i) => i.day), expected.map((d) => d.day));
    items.forEach((item, i) => {
      const d = expected[i]!;
      const apr = pct(d.rewards * 365n, d.totalStaked);
      assert.ok(close(item.apr_pct, apr), `${d.day}: ${item.apr_pct} vs ${apr}`);
      assert.equal(item.rewarded_validators, d.rewardedValidators, d.day);
    });
  }

  it('answers each day: 365 × net rewards over the stake, and the validators whose net was positive', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual({ ...body, items: undefined }, { items: undefined, count: 4, network: 'testnet', window_days: 365 });
    expectItems(body.items, 365);
  });

  it('is negative exactly on the days with a slashing: the initial penalty outweighs the day’s rewards', async () => {
    const body = (await get('')).json();
    const slashingDays = s.seeded().days.filter((d) => d.slashings > 0).map((d) => d.day);
    assert.ok(slashingDays.length >= 2, 'the beacon chain has slashings on two days');
    assert.deepEqual(body.items.filter((i: Item) => i.apr_pct < 0).map((i: Item) => i.day), slashingDays);
  });

  it('cuts the window to whole days ending with the latest staking day', async () => {
    for (const [window, days] of [['2d', 2], ['24h', 1], ['90m', 1], ['1w', 7]] as const) {
      const body = (await get(`?window=${window}`)).json();
      assert.equal(body.window_days, days, window);
      assert.equal(body.count, body.items.length);
      expectItems(body.items, days);
    }
  });
});

describeSeededApp('GET /analytics/staking/apr-daily', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/staking/apr-daily${query}`, headers: AUTH });

  it('answers one item per day from pos genesis to the end of the generated history, pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const { days } = worldStaking(s.seeded());
    assert.deepEqual({ ...body, items: undefined }, { items: undefined, count: days.length, network: 'testnet', window_days: 365 });
    assert.deepEqual(body.items.map((i: Item) => i.day), days);
  });

  it('cuts the window to whole days ending with the latest staking day', async () => {
    for (const [window, days] of [['2d', 2], ['24h', 1], ['90m', 1], ['1w', 7]] as const) {
      const body = (await get(`?window=${window}`)).json();
      assert.deepEqual(body.items.map((i: Item) => i.day), lastDays(worldStaking(s.seeded()).days, days), window);
      assert.equal(body.window_days, days);
      assert.equal(body.count, body.items.length);
    }
  });

  it('answers pow, which has no validators, with the empty shape', async () => {
    const res = await get('?chain=pow&window=30d');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { items: [], count: 0, network: 'mainnet', window_days: 30 });
  });

  it('refuses a malformed window or chain, naming it', async () => {
    for (const [query, param] of [['?window=0d', 'window'], ['?window=11y', 'window'], ['?window=all', 'window'], ['?chain=btc', 'chain']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });
});

describeSeededApp('GET /analytics/staking/apr-daily on an empty store', async () => null, (s) => {
  it('answers the empty shape', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/staking/apr-daily', headers: AUTH });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { items: [], count: 0, network: 'testnet', window_days: 365 });
  });
});
