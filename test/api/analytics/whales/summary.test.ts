import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { biggestOf, sentOn, thresholdOf, whaleOracle, whalesOf, windowDays } from '../../../support/expected-whales.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/whales/summary';

function expected(w: AnalyticsWorld, chain: ChainId, network: string, pct?: number) {
  const o = whaleOracle(w, chain);
  const threshold = thresholdOf(o, pct);
  const whales = whalesOf(o, threshold);
  const total = whales.reduce((a, x) => a + x.balance, 0n);
  const week = windowDays(o, 7);
  return {
    body: {
      chain, network, whale_threshold: threshold.toString(), whale_count: whales.length, total_whale_balance: total.toString(),
      total_supply: o.supply.toString(), avg_per_whale: (whales.length ? total / BigInt(whales.length) : 0n).toString(),
      moved_whales_7d: whales.filter((x) => !x.exchange && week.some((day) => sentOn(o, x.address, day) > 0n)).length,
      biggest_tx_30d: biggestOf(o, windowDays(o, 30), 1)[0] ?? null,
      is_sparse: o.firstDay > windowDays(o, 30)[0]! || windowDays(o, 30).length < 30,
      threshold_pct: pct ?? null,
    },
    pct: Number((total * 10n ** 14n) / o.supply) / 1e12,
  };
}

function check(body: Record<string, unknown>, e: ReturnType<typeof expected>, message: string) {
  const { whale_supply_pct: pct, ...rest } = body;
  assert.deepEqual(rest, e.body, message);
  assert.ok(Math.abs((pct as number) - e.pct) < 1e-9, `${message}: ${pct} vs ${e.pct}`);
}

describeSeededApp('GET /analytics/whales/summary', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('answers the whales of pos by default, the six-day history sparse', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    check(body, expected(s.seeded(), 'pos', s.t().config.networks.pos), 'pos');
    assert.ok(body.whale_count > 0 && body.biggest_tx_30d !== null && body.is_sparse === true);
  });

  it('answers pow and percent thresholds', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const network = s.t().config.networks[chain];
      check((await get(`?chain=${chain}`)).json(), expected(s.seeded(), chain, network), chain);
      for (const pct of [0.1, 1, 100]) check((await get(`?chain=${chain}&threshold_pct=${pct}`)).json(), expected(s.seeded(), chain, network, pct), `${chain} ${pct}`);
    }
  });

  it('refuses a bad threshold_pct or chain, naming it', async () => {
    for (const [query, param] of [['?threshold_pct=0', 'threshold_pct'], ['?threshold_pct=200', 'threshold_pct'], ['?chain=x', 'chain']]) {
      const res = await get(query!);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), `${query}: ${res.body}`);
    }
  });
});

describeSeededApp('GET /analytics/whales/summary on an empty store', async () => null, (s) => {
  it('answers zeros, sparse', async () => {
    const body = (await s.t().app.inject({ url: `${URL}?chain=pow`, headers: AUTH })).json();
    assert.deepEqual(body, {
      chain: 'pow', network: s.t().config.networks.pow, whale_threshold: (10n ** 14n).toString(), whale_count: 0, total_whale_balance: '0',
      total_supply: '0', whale_supply_pct: 0, avg_per_whale: '0', moved_whales_7d: 0, biggest_tx_30d: null, is_sparse: true, threshold_pct: null,
    });
  });
});
