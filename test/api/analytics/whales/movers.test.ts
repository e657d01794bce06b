import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { netOver, thresholdOf, whaleOracle, whalesOf, windowDays } from '../../../support/expected-whales.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/whales/movers';

function expected(w: AnalyticsWorld, chain: ChainId, network: string, limit: number, days: number, pct?: number) {
  const o = whaleOracle(w, chain);
  const threshold = thresholdOf(o, pct);
  const window = windowDays(o, days);
  const flows = whalesOf(o, threshold)
    .filter((x) => !x.exchange)
    .map((x) => ({ address: x.address, balance: x.balance.toString(), net: netOver(o, x.address, window) }));
  const tie = (a: { address: string }, b: { address: string }) => (a.address < b.address ? -1 : 1);
  const item = (f: (typeof flows)[number]) => ({ address: f.address, balance: f.balance, net_flow: f.net.toString() });
  return {
    accumulators: flows.filter((f) => f.net > 0n).sort((a, b) => (a.net === b.net ? tie(a, b) : a.net > b.net ? -1 : 1)).slice(0, limit).map(item),
    distributors: flows.filter((f) => f.net < 0n).sort((a, b) => (a.net === b.net ? tie(a, b) : a.net < b.net ? -1 : 1)).slice(0, limit).map(item),
    chain,
    network,
    window_days: days,
    whale_threshold: threshold.toString(),
    threshold_pct: pct ?? null,
  };
}

describeSeededApp('GET /analytics/whales/movers', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('answers the whales (exchanges excluded) with the largest net flows of 7 days, pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body, expected(s.seeded(), 'pos', s.t().config.networks.pos, 10, 7));
    assert.ok(body.accumulators.length + body.distributors.length > 0, 'whales moved');
  });

  it('answers pow, limits, windows and a percent threshold; no exchange address is listed', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      const network = s.t().config.networks[chain];
      for (const [query, limit, days, pct] of [['limit=1', 1, 7, undefined], ['limit=50&window=2d', 50, 2, undefined], ['threshold_pct=0.1&limit=50', 50, 7, 0.1]] as const) {
        const body = (await get(`?chain=${chain}&${query}`)).json();
        assert.deepEqual(body, expected(s.seeded(), chain, network, limit, days, pct), `${chain} ${query}`);
        const exchanges = new Set(s.seeded().world.curated.exchangeWallets.filter((x) => x.confirmed).map((x) => x.address));
        for (const m of [...body.accumulators, ...body.distributors]) assert.ok(!exchanges.has(m.address), m.address);
      }
    }
  });

  it('refuses a bad limit, window, threshold_pct or chain, naming it', async () => {
    for (const [query, param] of [['?limit=0', 'limit'], ['?limit=51', 'limit'], ['?window=7', 'window'], ['?threshold_pct=1000', 'threshold_pct'], ['?chain=x', 'chain']]) {
      const res = await get(query!);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), `${query}: ${res.body}`);
    }
  });
});

describeSeededApp('GET /analytics/whales/movers on an empty store', async () => null, (s) => {
  it('answers empty lists', async () => {
    const body = (await s.t().app.inject({ url: `${URL}?threshold_pct=5`, headers: AUTH })).json();
    assert.deepEqual(body, { accumulators: [], distributors: [], chain: 'pos', network: s.t().config.networks.pos, window_days: 7, whale_threshold: '0', threshold_pct: 5 });
  });
});
