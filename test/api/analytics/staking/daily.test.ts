import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { close, coins, executionSupply, pct, stakingWindowDays } from '../../../support/expected-staking.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

/** Fewest stakes, largest first, whose sum is more than a third of the total, written out here. */
function nakamoto33(stakes: bigint[]): number {
  const total = stakes.reduce((a, b) => a + b, 0n);
  const sorted = [...stakes].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  let sum = 0n;
  for (let i = 0; i < sorted.length; i++) {
    sum += sorted[i]!;
    if (3n * sum > total) return i + 1;
  }
  return 0;
}

describeSeededApp('GET /analytics/staking/daily', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/staking/daily${query}`, headers: AUTH });

  it('answers validators, stake, Nakamoto 33% and the stake’s share of the supply per staking day', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    const expected = stakingWindowDays(s.seeded(), 365);
    assert.equal(body.count, expected.length);
    assert.equal(body.network, 'testnet');
    assert.equal(body.window_days, 365);
    body.items.forEach((item: { day: string; active_validators: number; staking_ratio_pct: number; nakamoto_33: number; total_staked_quanta: string }, i: number) => {
      const d = expected[i]!;
      assert.equal(item.day, d.day);
      assert.equal(item.active_validators, d.activeValidators, d.day);
      assert.equal(item.total_staked_quanta, coins(d.totalStaked, 18), d.day);
      assert.equal(item.nakamoto_33, d.nakamoto33, d.day);
      const supply = executionSupply(s.seeded().blocks.pos, d.day) + d.totalStaked;
      assert.ok(close(item.staking_ratio_pct, pct(d.totalStaked, supply)), `${d.day}: ${item.staking_ratio_pct} vs ${pct(d.totalStaked, supply)}`);
      assert.ok(item.staking_ratio_pct > 0 && item.staking_ratio_pct < 100);
    });
  });

  it('counts Nakamoto 33% over the validators’ stakes', async () => {
    // The last day's active validators are those whose final state is active (none exits on the last day).
    const last = stakingWindowDays(s.seeded(), 1)[0]!;
    const active = s.seeded().world.staking.validators.filter((v) => v.status.startsWith('active_'));
    assert.equal(active.length, last.activeValidators);
    const body = (await get('?window=1d')).json();
    assert.equal(body.items[0].nakamoto_33, nakamoto33(active.map((v) => v.effectiveBalance)));
    assert.ok(body.items[0].nakamoto_33 > 1);
  });

  it('cuts the window to whole days ending with the latest staking day; a window starting later reads the supply before it', async () => {
    for (const [window, days] of [['3d', 3], ['24h', 1], ['1w', 7]] as const) {
      const body = (await get(`?chain=pos&window=${window}`)).json();
      const expected = stakingWindowDays(s.seeded(), days);
      assert.deepEqual(body.items.map((i: { day: string }) => i.day), expected.map((d) => d.day), window);
      assert.equal(body.window_days, days);
      body.items.forEach((item: { staking_ratio_pct: number }, i: number) => {
        const d = expected[i]!;
        const expectedPct = pct(d.totalStaked, executionSupply(s.seeded().blocks.pos, d.day) + d.totalStaked);
        assert.ok(close(item.staking_ratio_pct, expectedPct), `${window} ${d.day}: ${item.staking_ratio_pct} vs ${expectedPct}`);
      });
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
