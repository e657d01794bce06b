import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../../src/chain/model.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { expectedActivity, lastDays, loadActivityChains, TEST_NETWORK } from '../../../support/expected-activity.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/wallet-count';

function expected(blocks: CanonicalBlock[], days: number) {
  return lastDays(expectedActivity(blocks), days).map(({ day, newWallets, walletCount }) => ({ day, new_wallets: newWallets, wallet_count: walletCount }));
}

describeSeededApp('GET /analytics/wallet-count', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('counts new wallets and the running total per day, pos and 30 days by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const items = expected(s.seeded().blocks.pos, 30);
    assert.deepEqual(res.json(), { items, count: items.length, chain: 'pos', network: 'testnet', window_days: 30 });
  });

  it('carries the wallets of the days before a short window, the open day included', async () => {
    const blocks = s.seeded().blocks.pow;
    for (const [window, days] of [['2d', 2], ['24h', 1], ['3d', 3]] as const) {
      const body = (await get(`?chain=pow&window=${window}`)).json();
      assert.deepEqual(body.items, expected(blocks, days), window);
      assert.equal(body.window_days, days);
    }
    const open = (await get('?chain=pow&window=1d')).json().items[0];
    assert.equal(open.day, utcDay(blocks.at(-1)!.timestamp));
    assert.ok(open.wallet_count > open.new_wallets, 'earlier days’ wallets are counted');
  });

  it('refuses a malformed window or chain, naming it', async () => {
    for (const [query, param] of [['?window=0d', 'window'], ['?window=11y', 'window'], ['?window=7x', 'window'], ['?chain=btc', 'chain']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });
});

describeSeededApp('GET /analytics/wallet-count over a long history', loadActivityChains, (s) => {
  it('matches the blocks on every day, windows short of the history included', async () => {
    for (const chain of ['pow', 'pos'] as ChainId[]) {
      for (const days of [90, 30, 7, 1]) {
        const body = (await s.t().app.inject({ url: `${URL}?chain=${chain}&window=${days}d`, headers: AUTH })).json();
        const items = expected(s.seeded()[chain], days);
        assert.deepEqual(body, { items, count: items.length, chain, network: TEST_NETWORK[chain], window_days: days }, `${chain} ${days}d`);
      }
    }
  });
});

describeSeededApp('GET /analytics/wallet-count on an empty store', emptyStore, (s) => {
  it('answers an empty list with the envelope', async () => {
    const res = await s.t().app.inject({ url: `${URL}?chain=pow`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { items: [], count: 0, chain: 'pow', network: 'mainnet', window_days: 30 });
  });
});
