import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { netOver, thresholdOf, whaleOracle, whalesOf, whaleTs, windowDays } from '../../../support/expected-whales.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/whales/leaderboard';

function expected(w: AnalyticsWorld, chain: ChainId, network: string, limit: number, pct?: number) {
  const o = whaleOracle(w, chain);
  const threshold = thresholdOf(o, pct);
  const week = windowDays(o, 7);
  const items = whalesOf(o, threshold).slice(0, limit).map((x, i) => ({
    rank: i + 1,
    address: x.address,
    balance: x.balance.toString(),
    tx_count: x.txCount,
    last_seen: x.lastSeen === null ? null : whaleTs(x.lastSeen),
    delta_7d: netOver(o, x.address, week).toString(),
  }));
  return { items, count: items.length, chain, network, whale_threshold: threshold.toString(), threshold_pct: pct ?? null };
}

describeSeededApp('GET /analytics/whales/leaderboard', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('answers the richest whales above 100,000 coins, pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body, expected(s.seeded(), 'pos', s.t().config.networks.pos, 50));
    assert.ok(body.count > 0, 'the world has whales');
    assert.equal(body.whale_threshold, (10n ** 23n).toString());
  });

  it('answers pow with a limit, and a threshold as a percent of the supply', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const network = s.t().config.networks[chain];
      assert.deepEqual((await get(`?chain=${chain}&limit=3`)).json(), expected(s.seeded(), chain, network, 3));
      // Any positive percentage up to 100: a small one makes most holders whales.
      for (const pct of [0.001, 0.05, 0.1, 0.5, 2.25, 100]) {
        const res = await get(`?chain=${chain}&threshold_pct=${pct}&limit=200`);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), expected(s.seeded(), chain, network, 200, pct), `${chain} ${pct}`);
      }
      assert.ok((await get(`?chain=${chain}&threshold_pct=0.5`)).json().count > 0, `${chain}: some address holds 0.5 % of the supply`);
    }
  });

  it('refuses a bad limit, threshold_pct or chain, naming it', async () => {
    const bad = [['?limit=0', 'limit'], ['?limit=201', 'limit'], ['?threshold_pct=0', 'threshold_pct'], ['?threshold_pct=-0.001', 'threshold_pct'],
      ['?threshold_pct=100.5', 'threshold_pct'], ['?threshold_pct=-1', 'threshold_pct'], ['?threshold_pct=abc', 'threshold_pct'], ['?threshold_pct=', 'threshold_pct'],
      ['?chain=btc', 'chain']];
    for (const [query, param] of bad) {
      const res = await get(query!);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), `${query}: ${res.body}`);
    }
  });
});

describeSeededApp('GET /analytics/whales/leaderboard on an empty store', async () => null, (s) => {
  it('answers an empty list with the threshold', async () => {
    const body = (await s.t().app.inject({ url: `${URL}?chain=pow&threshold_pct=1`, headers: AUTH })).json();
    assert.deepEqual(body, { items: [], count: 0, chain: 'pow', network: s.t().config.networks.pow, whale_threshold: '0', threshold_pct: 1 });
    const floor = (await s.t().app.inject({ url: `${URL}?chain=pow`, headers: AUTH })).json();
    assert.equal(floor.whale_threshold, (10n ** 14n).toString());
    assert.equal(floor.threshold_pct, null);
  });
});
