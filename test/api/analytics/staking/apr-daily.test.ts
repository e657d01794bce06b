import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { close, pct, stakingWindowDays } from '../../../support/expected-staking.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

describeSeededApp('GET /analytics/staking/apr-daily', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/staking/apr-daily${query}`, headers: AUTH });

  it('answers each staking day: 365 × net rewards over the stake, pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const expected = stakingWindowDays(s.seeded(), 365);
    assert.ok(expected.length >= 4, 'the world has several staking days');
    assert.deepEqual({ ...body, items: undefined }, { items: undefined, count: expected.length, network: 'testnet', window_days: 365 });
    assert.deepEqual(body.items.map((i: { day: string }) => i.day), expected.map((d) => d.day));
    body.items.forEach((item: { apr_pct: number; rewarded_validators: number }, i: number) => {
      const d = expected[i]!;
      assert.ok(close(item.apr_pct, pct(d.rewards * 365n, d.totalStaked)), `${d.day}: ${item.apr_pct}`);
      assert.equal(item.rewarded_validators, d.rewardedValidators, d.day);
    });
  });

  it('is negative on a day whose penalties exceed its rewards: the slashing day and the offline day', async () => {
    const body = (await get('')).json();
    const slashingDays = stakingWindowDays(s.seeded(), 365).filter((d) => d.slashings > 0).map((d) => d.day);
    assert.ok(slashingDays.length > 0, 'the world has a slashing');
    const negative = body.items.filter((i: { apr_pct: number }) => i.apr_pct < 0).map((i: { day: string }) => i.day);
    for (const day of slashingDays) assert.ok(negative.includes(day), `the slashing day ${day} is negative (initial penalty included)`);
    assert.ok(negative.some((day: string) => !slashingDays.includes(day)), 'a day with many validators offline is negative too');
  });

  it('cuts the window to whole days ending with the latest staking day', async () => {
    for (const [window, days] of [['2d', 2], ['24h', 1], ['90m', 1], ['1w', 7]] as const) {
      const body = (await get(`?window=${window}`)).json();
      assert.deepEqual(body.items.map((i: { day: string }) => i.day), stakingWindowDays(s.seeded(), days).map((d) => d.day), window);
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
