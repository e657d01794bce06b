import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { expectedFromBlocks } from '../../../support/expected.ts';
import { thresholdOf, whaleOracle, whalesOf, windowDays } from '../../../support/expected-whales.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/whales/sparklines';

/** Balances at each day's end, replayed forward from the blocks up to that day (not backward from today's). */
function expected(w: AnalyticsWorld, chain: ChainId, network: string, limit: number, days: number, pct?: number) {
  const o = whaleOracle(w, chain);
  const threshold = thresholdOf(o, pct);
  const whales = whalesOf(o, threshold).slice(0, limit);
  const series = new Map(whales.map((x) => [x.address, [] as { day: string; balance: string }[]]));
  for (const day of windowDays(o, days)) {
    const upTo = expectedFromBlocks(chain, o.blocks.filter((b) => utcDay(b.timestamp) <= day));
    for (const x of whales) series.get(x.address)!.push({ day, balance: (upTo.addresses.get(x.address)?.balance ?? 0n).toString() });
  }
  const items = whales.map((x) => ({ address: x.address, series: series.get(x.address)! }));
  return { items, count: items.length, chain, network, days, whale_threshold: threshold.toString(), threshold_pct: pct ?? null };
}

describeSeededApp('GET /analytics/whales/sparklines', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('answers daily balances of the 25 richest whales over 30 days (clipped to the history), pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body, expected(s.seeded(), 'pos', s.t().config.networks.pos, 25, 30));
    assert.ok(body.count > 0);
    assert.ok(body.items.some((i: { series: { balance: string }[] }) => new Set(i.series.map((p) => p.balance)).size > 1), 'some whale’s balance moved');
  });

  it('answers pow, a shorter window, a limit and a percent threshold', async () => {
    const network = s.t().config.networks.pow;
    assert.deepEqual((await get('?chain=pow&window=3d&limit=4')).json(), expected(s.seeded(), 'pow', network, 4, 3));
    assert.deepEqual((await get('?chain=pow&threshold_pct=0.5&limit=100')).json(), expected(s.seeded(), 'pow', network, 100, 30, 0.5));
  });

  it('refuses a bad limit, window, threshold_pct or chain, naming it', async () => {
    for (const [query, param] of [['?limit=0', 'limit'], ['?limit=101', 'limit'], ['?window=0d', 'window'], ['?threshold_pct=0', 'threshold_pct'], ['?threshold_pct=101', 'threshold_pct'], ['?chain=x', 'chain']]) {
      const res = await get(query!);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), `${query}: ${res.body}`);
    }
  });
});

describeSeededApp('GET /analytics/whales/sparklines on an empty store', async () => null, (s) => {
  it('answers an empty list', async () => {
    const body = (await s.t().app.inject({ url: URL, headers: AUTH })).json();
    assert.deepEqual(body, { items: [], count: 0, chain: 'pos', network: s.t().config.networks.pos, days: 30, whale_threshold: (10n ** 23n).toString(), threshold_pct: null });
  });
});
