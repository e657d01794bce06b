import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { thresholdOf, whaleOracle, whalesOf, windowDays } from '../../../support/expected-whales.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/whales/exchange-flow';

/** Transfer legs of successful transactions between the whales (exchanges excluded) and confirmed exchange addresses, each counted once. */
function expected(w: AnalyticsWorld, chain: ChainId, network: string, days: number, pct?: number) {
  const o = whaleOracle(w, chain);
  const threshold = thresholdOf(o, pct);
  const whales = new Set(whalesOf(o, threshold).filter((x) => !x.exchange).map((x) => x.address));
  const window = new Set(windowDays(o, days));
  let deposits = 0n;
  let withdrawals = 0n;
  let depositTxs = 0;
  let withdrawalTxs = 0;
  for (const b of o.blocks) {
    if (!window.has(utcDay(b.timestamp))) continue;
    for (const t of b.transactions) {
      if (t.status === 0) continue;
      const legs = t.to !== null ? [{ to: t.to, amount: t.value }] : (t.recipients ?? []);
      for (const leg of legs) {
        if (leg.amount <= 0n) continue;
        if (whales.has(t.from) && o.exchanges.has(leg.to)) {
          deposits += leg.amount;
          depositTxs++;
        }
        if (o.exchanges.has(t.from) && whales.has(leg.to)) {
          withdrawals += leg.amount;
          withdrawalTxs++;
        }
      }
    }
  }
  const start = utcDay(Date.parse(`${o.tipDay}T00:00:00Z`) / 1000 - (days - 1) * 86_400);
  return {
    chain, network, days, all_time: start <= o.firstDay,
    deposits: deposits.toString(), withdrawals: withdrawals.toString(), net: (withdrawals - deposits).toString(),
    deposit_txs: depositTxs, withdrawal_txs: withdrawalTxs,
    exchange_labeled: o.exchanges.size > 0, exchange_count: o.exchangeNames.size,
    whale_threshold: threshold.toString(), threshold_pct: pct ?? null,
  };
}

describeSeededApp('GET /analytics/whales/exchange-flow', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('answers the whales’ deposits and withdrawals over 30 days (the whole history here), pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body, expected(s.seeded(), 'pos', s.t().config.networks.pos, 30));
    assert.equal(body.all_time, true);
    assert.equal(body.exchange_labeled, true);
  });

  it('answers pow, short windows (not all time) and a percent threshold', async () => {
    let flows = 0;
    for (const chain of ['pow', 'pos'] as const) {
      const network = s.t().config.networks[chain];
      for (const [query, days, pct] of [['window=2d', 2, undefined], ['window=1d', 1, undefined], ['threshold_pct=0.1', 30, 0.1], ['threshold_pct=0.1&window=3d', 3, 0.1]] as const) {
        const body = (await get(`?chain=${chain}&${query}`)).json();
        assert.deepEqual(body, expected(s.seeded(), chain, network, days, pct), `${chain} ${query}`);
        flows += body.deposit_txs + body.withdrawal_txs;
      }
      assert.equal((await get(`?chain=${chain}&window=1d`)).json().all_time, false);
    }
    assert.ok(flows > 0, 'whales and exchanges traded');
  });

  it('refuses a bad window, threshold_pct or chain, naming it', async () => {
    for (const [query, param] of [['?window=all', 'window'], ['?window=3651d', 'window'], ['?threshold_pct=0', 'threshold_pct'], ['?chain=x', 'chain']]) {
      const res = await get(query!);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), `${query}: ${res.body}`);
    }
  });
});

describeSeededApp('GET /analytics/whales/exchange-flow on an empty store', async () => null, (s) => {
  it('answers zeros, without exchange labels', async () => {
    const body = (await s.t().app.inject({ url: `${URL}?chain=pow`, headers: AUTH })).json();
    assert.deepEqual(body, {
      chain: 'pow', network: s.t().config.networks.pow, days: 30, all_time: true, deposits: '0', withdrawals: '0', net: '0',
      deposit_txs: 0, withdrawal_txs: 0, exchange_labeled: false, exchange_count: 0, whale_threshold: (10n ** 14n).toString(), threshold_pct: null,
    });
  });
});
