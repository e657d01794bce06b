import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../../src/chain/model.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { expectedActivity, lastDays, loadActivityChains, TEST_NETWORK } from '../../../support/expected-activity.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/transactions/user-daily';

function expected(blocks: CanonicalBlock[], days: number) {
  return lastDays(expectedActivity(blocks), days).map(({ day, userTxCount }) => ({ day, user_tx_count: userTxCount }));
}

describeSeededApp('GET /analytics/transactions/user-daily', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('counts each day’s user transactions, pos and 30 days by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const items = expected(s.seeded().blocks.pos, 30);
    assert.deepEqual(res.json(), { items, count: items.length, chain: 'pos', network: 'testnet', window_days: 30 });
  });

  it('leaves out pow coinbases, the open day included', async () => {
    const blocks = s.seeded().blocks.pow;
    const body = (await get('?chain=pow&window=90d')).json();
    const all = expectedActivity(blocks);
    assert.deepEqual(body.items, expected(blocks, 90));
    assert.equal(body.window_days, 90);
    assert.equal(body.items.at(-1).day, utcDay(blocks.at(-1)!.timestamp));
    assert.ok(all.every((d) => d.userTxCount < d.txCount), 'every pow day has coinbases to leave out');
  });

  it('refuses a malformed window or chain, naming it', async () => {
    for (const [query, param] of [['?window=0d', 'window'], ['?window=11y', 'window'], ['?window=abc', 'window'], ['?chain=POS', 'chain']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });
});

describeSeededApp('GET /analytics/transactions/user-daily over a long history', loadActivityChains, (s) => {
  it('matches the blocks on every day, days without blocks zero-filled', async () => {
    for (const chain of ['pow', 'pos'] as ChainId[]) {
      for (const days of [90, 14]) {
        const body = (await s.t().app.inject({ url: `${URL}?chain=${chain}&window=${days}d`, headers: AUTH })).json();
        const items = expected(s.seeded()[chain], days);
        assert.deepEqual(body, { items, count: items.length, chain, network: TEST_NETWORK[chain], window_days: days }, `${chain} ${days}d`);
      }
    }
  });
});

describeSeededApp('GET /analytics/transactions/user-daily on an empty store', emptyStore, (s) => {
  it('answers an empty list with the envelope', async () => {
    const res = await s.t().app.inject({ url: URL, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { items: [], count: 0, chain: 'pos', network: 'testnet', window_days: 30 });
  });
});
