import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../../src/chain/model.ts';
import { AUTH } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { expectedActivity, loadActivityChains, TEST_NETWORK } from '../../../support/expected-activity.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/network/page-summary';

const shift = (day: string, days: number) => utcDay(Date.parse(`${day}T00:00:00Z`) / 1000 + days * 86_400);

/** The summary by its definitions: the day before the tip's, the tip's 30 days and the 30 before them. */
function expected(blocks: CanonicalBlock[], chain: ChainId) {
  const activity = expectedActivity(blocks);
  const tipDay = utcDay(blocks.at(-1)!.timestamp);
  const txIn = (from: string, to: string) => activity.filter((d) => d.day >= from && d.day <= to).reduce((n, d) => n + d.txCount, 0);
  const recent = txIn(shift(tipDay, -29), tipDay);
  const prior = txIn(shift(tipDay, -59), shift(tipDay, -30));
  return {
    chain,
    network: TEST_NETWORK[chain],
    dau_yesterday: activity.find((d) => d.day === shift(tipDay, -1))?.dau ?? 0,
    mau_proxy: activity.at(-1)!.mau,
    tx_count_30d: recent,
    tx_count_prior_30d: prior,
    tx_count_delta_pct: prior > 0 ? ((recent - prior) * 100) / prior : null,
    is_sparse: utcDay(blocks[0]!.timestamp) > shift(tipDay, -59),
  };
}

describeSeededApp('GET /analytics/network/page-summary', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('answers pos by default from the blocks: a short history is sparse, without a prior 30 days', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body, expected(s.seeded().blocks.pos, 'pos'));
    assert.equal(body.is_sparse, true);
    assert.equal(body.tx_count_delta_pct, null);
    assert.ok(body.dau_yesterday > 0 && body.mau_proxy >= body.dau_yesterday);
  });

  it('answers pow, its MAU counted up to the open day', async () => {
    const body = (await get('?chain=pow')).json();
    assert.deepEqual(body, expected(s.seeded().blocks.pow, 'pow'));
  });

  it('refuses an unknown chain, naming it', async () => {
    const res = await get('?chain=btc');
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.ok(res.json().errors.some((e: { param: string }) => e.param === 'chain'), res.body);
  });
});

describeSeededApp('GET /analytics/network/page-summary over a long history', loadActivityChains, (s) => {
  it('compares the last 30 days with the 30 before once the history covers both', async () => {
    const pow = (await s.t().app.inject({ url: `${URL}?chain=pow`, headers: AUTH })).json();
    assert.deepEqual(pow, expected(s.seeded().pow, 'pow'));
    assert.equal(pow.is_sparse, false);
    assert.equal(typeof pow.tx_count_delta_pct, 'number');
    const pos = (await s.t().app.inject({ url: `${URL}?chain=pos`, headers: AUTH })).json();
    assert.deepEqual(pos, expected(s.seeded().pos, 'pos'));
    assert.equal(pos.is_sparse, true);
  });
});

describeSeededApp('GET /analytics/network/page-summary on an empty store', emptyStore, (s) => {
  it('answers zeros, a null delta and is_sparse', async () => {
    const res = await s.t().app.inject({ url: `${URL}?chain=pow`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      chain: 'pow', network: 'mainnet', dau_yesterday: 0, mau_proxy: 0, tx_count_30d: 0, tx_count_prior_30d: 0, tx_count_delta_pct: null, is_sparse: true,
    });
  });
});
