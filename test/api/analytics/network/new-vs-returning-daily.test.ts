import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../../src/chain/model.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { expectedActivity, lastDays, loadActivityChains, TEST_NETWORK } from '../../../support/expected-activity.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/network/new-vs-returning-daily';

function expected(blocks: CanonicalBlock[], days: number) {
  return lastDays(expectedActivity(blocks), days).map(({ day, dau, newWallets }) => ({ day, new_addresses: newWallets, returning_addresses: dau - newWallets }));
}

describeSeededApp('GET /analytics/network/new-vs-returning-daily', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('splits each day’s active addresses into first-timers and returners, pos and 30 days by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const items = expected(s.seeded().blocks.pos, 30);
    assert.deepEqual(res.json(), { items, count: items.length, days: 30, chain: 'pos', network: 'testnet' });
  });

  it('answers pow with the open day included, new + returning = DAU', async () => {
    const blocks = s.seeded().blocks.pow;
    const body = (await get('?chain=pow&window=1w')).json();
    assert.deepEqual(body.items, expected(blocks, 7));
    assert.equal(body.days, 7);
    const open = body.items.at(-1);
    assert.equal(open.day, utcDay(blocks.at(-1)!.timestamp));
    const dau = expectedActivity(blocks).at(-1)!.dau;
    assert.ok(dau > 0);
    assert.equal(open.new_addresses + open.returning_addresses, dau);
    assert.ok(body.items.some((d: { returning_addresses: number }) => d.returning_addresses > 0));
  });

  it('refuses a malformed window or chain, naming it', async () => {
    for (const [query, param] of [['?window=0d', 'window'], ['?window=11y', 'window'], ['?window=-3d', 'window'], ['?chain=eth', 'chain']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });
});

describeSeededApp('GET /analytics/network/new-vs-returning-daily over a long history', loadActivityChains, (s) => {
  it('matches the blocks on every day, days without blocks zero-filled', async () => {
    for (const chain of ['pow', 'pos'] as ChainId[]) {
      for (const days of [90, 30, 2]) {
        const body = (await s.t().app.inject({ url: `${URL}?chain=${chain}&window=${days}d`, headers: AUTH })).json();
        const items = expected(s.seeded()[chain], days);
        assert.deepEqual(body, { items, count: items.length, days, chain, network: TEST_NETWORK[chain] }, `${chain} ${days}d`);
      }
    }
    const pow = expected(s.seeded().pow, 90);
    assert.ok(pow.some((d) => d.new_addresses > 0 && d.day > pow[10]!.day), 'wallets keep arriving');
  });
});

describeSeededApp('GET /analytics/network/new-vs-returning-daily on an empty store', emptyStore, (s) => {
  it('answers an empty list with the envelope', async () => {
    const res = await s.t().app.inject({ url: URL, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { items: [], count: 0, days: 30, chain: 'pos', network: 'testnet' });
  });
});
