import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { sentOn, thresholdOf, whaleOracle, whalesOf, windowDays } from '../../../support/expected-whales.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/whales/heatmap';

function expected(w: AnalyticsWorld, chain: ChainId, network: string, days: number, pct?: number) {
  const o = whaleOracle(w, chain);
  const threshold = thresholdOf(o, pct);
  const whales = whalesOf(o, threshold).filter((x) => !x.exchange);
  const rows = windowDays(o, days).map((day) => {
    const sent = whales.map((x) => sentOn(o, x.address, day)).filter((v) => v > 0n);
    return { day, movers: sent.length, volume: sent.reduce((a, b) => a + b, 0n).toString() };
  });
  const max = Math.max(0, ...rows.map((r) => r.movers));
  const items = rows.map((r) => ({ ...r, intensity: max === 0 ? 0 : r.movers / max }));
  return { items, count: items.length, chain, network, days, max_movers: max, whale_threshold: threshold.toString(), threshold_pct: pct ?? null };
}

describeSeededApp('GET /analytics/whales/heatmap', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('answers each day of 90 days (clipped to the history) with the whales that sent value, pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body, expected(s.seeded(), 'pos', s.t().config.networks.pos, 90));
    assert.ok(body.max_movers > 0, 'whales moved');
  });

  it('answers pow, shorter windows and a percent threshold', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const network = s.t().config.networks[chain];
      assert.deepEqual((await get(`?chain=${chain}&window=2d`)).json(), expected(s.seeded(), chain, network, 2));
      assert.deepEqual((await get(`?chain=${chain}&threshold_pct=0.2&window=1w`)).json(), expected(s.seeded(), chain, network, 7, 0.2));
      // Any positive percentage up to 100. (Below about 0.005 % the pow whales include a detected deposit
      // relay, which the oracle does not know as an exchange: 0.001 is checked for its threshold.)
      for (const pct of [0.01, 100]) assert.deepEqual((await get(`?chain=${chain}&threshold_pct=${pct}&window=1w`)).json(), expected(s.seeded(), chain, network, 7, pct), `${chain} ${pct}`);
      const tiny = await get(`?chain=${chain}&threshold_pct=0.001&window=1w`);
      assert.equal(tiny.statusCode, 200, tiny.body);
      assert.equal(tiny.json().whale_threshold, expected(s.seeded(), chain, network, 7, 0.001).whale_threshold, `${chain} 0.001`);
    }
  });

  it('refuses a bad window, threshold_pct or chain, naming it', async () => {
    for (const [query, param] of [['?window=all', 'window'], ['?window=-3d', 'window'], ['?threshold_pct=0', 'threshold_pct'], ['?threshold_pct=-0.5', 'threshold_pct'], ['?threshold_pct=101', 'threshold_pct'], ['?threshold_pct=', 'threshold_pct'], ['?chain=x', 'chain']]) {
      const res = await get(query!);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), `${query}: ${res.body}`);
    }
  });
});

describeSeededApp('GET /analytics/whales/heatmap on an empty store', async () => null, (s) => {
  it('answers an empty list', async () => {
    const body = (await s.t().app.inject({ url: `${URL}?chain=pow&window=7d`, headers: AUTH })).json();
    assert.deepEqual(body, { items: [], count: 0, chain: 'pow', network: s.t().config.networks.pow, days: 7, max_movers: 0, whale_threshold: (10n ** 14n).toString(), threshold_pct: null });
  });
});
