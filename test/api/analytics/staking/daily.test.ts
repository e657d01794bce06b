import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { close, coins, executionSupply, lastDays, pct, seedStakingFromBeacon, worldStaking } from '../../../support/expected-staking.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

interface Item {
  day: string;
  active_validators: number;
  staking_ratio_pct: number;
  nakamoto_33: number;
  total_staked_quanta: string;
}

describeSeededApp('GET /analytics/staking/daily from a beacon node', seedStakingFromBeacon, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/staking/daily${query}`, headers: AUTH });

  /** Each day's figures from the beacon node's validator records; the ratio over the pos blocks' supply plus the stake. */
  function expectItems(items: Item[], days: number) {
    const expected = lastDays(s.seeded().days, days);
    assert.deepEqual(items.map((i) => i.day), expected.map((d) => d.day));
    items.forEach((item, i) => {
      const d = expected[i]!;
      assert.deepEqual(
        { active_validators: item.active_validators, total_staked_quanta: item.total_staked_quanta, nakamoto_33: item.nakamoto_33 },
        { active_validators: d.activeValidators, total_staked_quanta: coins(d.totalStaked, 18), nakamoto_33: d.nakamoto33 },
        d.day,
      );
      const ratio = pct(d.totalStaked, executionSupply(s.seeded().blocks, d.day) + d.totalStaked);
      assert.ok(close(item.staking_ratio_pct, ratio), `${d.day}: ${item.staking_ratio_pct} vs ${ratio}`);
    });
  }

  it('answers each day: active validators, their effective balances summed, Nakamoto 33% and the stake’s share of the supply', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual({ ...body, items: undefined }, { items: undefined, count: 4, network: 'testnet', window_days: 365 });
    expectItems(body.items, 365);
    // Validators join during the days: the set, the stake and the Nakamoto coefficient move.
    assert.deepEqual(new Set(body.items.map((i: Item) => i.active_validators)).size > 1, true);
    assert.ok(body.items.every((i: Item) => i.staking_ratio_pct > 0 && i.staking_ratio_pct < 100));
  });

  it('cuts the window to whole days ending with the latest staking day', async () => {
    for (const [window, days] of [['2d', 2], ['24h', 1], ['90m', 1], ['1w', 7]] as const) {
      const body = (await get(`?chain=pos&window=${window}`)).json();
      assert.equal(body.window_days, days, window);
      assert.equal(body.count, body.items.length);
      expectItems(body.items, days);
    }
  });
});

describeSeededApp('GET /analytics/staking/daily', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/staking/daily${query}`, headers: AUTH });

  it('answers one item per day from pos genesis to the end of the generated history', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const { days } = worldStaking(s.seeded());
    assert.deepEqual({ ...body, items: undefined }, { items: undefined, count: days.length, network: 'testnet', window_days: 365 });
    assert.deepEqual(body.items.map((i: Item) => i.day), days);
  });

  it('answers the latest day as the validator rows say: active at the epoch of the end, their effective balances, Nakamoto 33%', async () => {
    const { last } = worldStaking(s.seeded());
    const body = (await get('?window=1d')).json();
    assert.equal(body.items.length, 1);
    const item: Item = body.items[0];
    assert.deepEqual(
      { day: item.day, active_validators: item.active_validators, total_staked_quanta: item.total_staked_quanta, nakamoto_33: item.nakamoto_33 },
      { day: last.day, active_validators: last.activeValidators, total_staked_quanta: coins(last.totalStaked, 18), nakamoto_33: last.nakamoto33 },
    );
    assert.ok(item.nakamoto_33 > 1);
    const ratio = pct(last.totalStaked, executionSupply(s.seeded().blocks.pos, last.day) + last.totalStaked);
    assert.ok(close(item.staking_ratio_pct, ratio), `${item.staking_ratio_pct} vs ${ratio}`);
  });

  it('cuts the window to whole days ending with the latest staking day', async () => {
    for (const [window, days] of [['3d', 3], ['24h', 1], ['1w', 7]] as const) {
      const body = (await get(`?chain=pos&window=${window}`)).json();
      assert.deepEqual(body.items.map((i: Item) => i.day), lastDays(worldStaking(s.seeded()).days, days), window);
      assert.equal(body.window_days, days);
    }
  });

  it('answers pow, which has no validators, with the empty shape', async () => {
    assert.deepEqual((await get('?chain=pow')).json(), { items: [], count: 0, network: 'mainnet', window_days: 365 });
  });

  it('refuses a malformed window or chain, naming it', async () => {
    for (const [query, param] of [['?window=-1d', 'window'], ['?window=3651d', 'window'], ['?chain=POS', 'chain']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });
});

describeSeededApp('GET /analytics/staking/daily on an empty store', async () => null, (s) => {
  it('answers the empty shape', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/staking/daily?window=7d', headers: AUTH });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { items: [], count: 0, network: 'testnet', window_days: 7 });
  });
});
