import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { confirmedVenues, flowsOf, movesOf } from '../../../support/expected-exchange.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

type Direction = 'deposit' | 'withdrawal' | 'both';

/** The largest flows of the window's days by docs/metrics.md ("Exchanges"), from the blocks and the curated venues. */
function expected(w: AnalyticsWorld, chain: ChainId, network: string, options: { limit: number; direction: Direction; days: number }) {
  const blocks = w.blocks[chain];
  const tipDay = utcDay(blocks.at(-1)!.timestamp);
  const from = utcDay(Date.parse(`${tipDay}T00:00:00Z`) / 1000 - (options.days - 1) * 86_400);
  const wallets = w.world.curated.exchangeWallets.filter((x) => x.chain === chain);
  const moves = movesOf(blocks);
  const flows = flowsOf(moves, confirmedVenues(wallets, moves)).filter((f) => f.day >= from && f.day <= tipDay);
  const rows = flows.flatMap((f) => [
    ...(f.toVenue && options.direction !== 'withdrawal' ? [{ f, direction: 'deposit' as const, venue: f.toVenue, relay: f.toRelay }] : []),
    ...(f.fromVenue && options.direction !== 'deposit' ? [{ f, direction: 'withdrawal' as const, venue: f.fromVenue, relay: f.fromRelay }] : []),
  ]);
  rows.sort((a, b) => (a.f.value !== b.f.value ? (a.f.value > b.f.value ? -1 : 1) : a.f.height - b.f.height || a.f.txIndex - b.f.txIndex || a.f.recipientIndex - b.f.recipientIndex || (a.direction < b.direction ? -1 : 1)));
  const items = rows.slice(0, options.limit).map(({ f, direction, venue, relay }) => ({
    tx_hash: f.hash,
    height: f.height,
    timestamp: new Date(f.ts * 1000).toISOString().slice(0, 19),
    from_addr: f.from,
    to_addr: f.to,
    value: f.value.toString(),
    direction,
    exchange_label: venue,
    via_relay: relay,
  }));
  return { items, count: items.length, chain, network, days: options.days, direction: options.direction, exchange_labeled: wallets.length > 0 };
}

describeSeededApp('GET /analytics/exchange/largest-transfers', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/exchange/largest-transfers${query}`, headers: AUTH });

  it('lists the largest deposits and withdrawals of the window, defaults: pos, both, 20, 30d', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body, expected(s.seeded(), 'pos', s.t().config.networks.pos, { limit: 20, direction: 'both', days: 30 }));
    assert.equal(body.count, 20);
    assert.ok(body.items.some((i: { direction: string }) => i.direction === 'deposit') && body.items.some((i: { direction: string }) => i.direction === 'withdrawal'));
  });

  it('filters by direction, limit and window on both chains; deposits are matched at the relay', async () => {
    for (const chain of ['pow', 'pos'] as const) {
      for (const [direction, limit, window, days] of [['deposit', 100, '30d', 30], ['withdrawal', 5, '2d', 2], ['both', 1, '24h', 1], ['deposit', 7, '1w', 7]] as const) {
        const res = await get(`?chain=${chain}&direction=${direction}&limit=${limit}&window=${window}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), expected(s.seeded(), chain, s.t().config.networks[chain], { limit, direction, days }), `${chain} ${direction} ${limit} ${window}`);
      }
      const deposits = (await get(`?chain=${chain}&direction=deposit&limit=100`)).json();
      assert.ok(deposits.items.some((i: { via_relay: boolean }) => i.via_relay), `${chain}: deposits through relays`);
    }
  });

  it('refuses bad parameters, naming them', async () => {
    for (const [query, param] of [['?chain=btc', 'chain'], ['?limit=0', 'limit'], ['?limit=101', 'limit'], ['?direction=in', 'direction'], ['?window=30x', 'window'], ['?window=11y', 'window']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), `${query}: ${res.body}`);
    }
  });
});

describeSeededApp('GET /analytics/exchange/largest-transfers on an empty store', async () => null, (s) => {
  it('answers an empty list with exchange_labeled false', async () => {
    const res = await s.t().app.inject({ url: '/api/v1/analytics/exchange/largest-transfers?chain=pow', headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { items: [], count: 0, chain: 'pow', network: s.t().config.networks.pow, days: 30, direction: 'both', exchange_labeled: false });
  });
});
