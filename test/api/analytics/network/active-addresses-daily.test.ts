import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ChainId } from '../../../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../../../src/chain/model.ts';
import { ingest } from '../../../../src/ingest/pipeline.ts';
import { AUTH } from '../../../support/app.ts';
import { ANALYTICS_WORLD, analyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { activityChains, expectedActivity, lastDays, loadActivityChains, TEST_NETWORK } from '../../../support/expected-activity.ts';
import { addr } from '../../../support/chain-builder.ts';
import { describeSeededApp, emptyStore } from '../../../support/seeded-app.ts';

const URL = '/api/v1/analytics/network/active-addresses-daily';

function expected(blocks: CanonicalBlock[], days: number) {
  return lastDays(expectedActivity(blocks), days).map(({ day, dau, wau, mau }) => ({ day, dau, wau, mau }));
}

// Ten pow days, so that WAU and MAU part on the last three. A world of its own (loaded once per
// run, for this file only): one pos day is enough for the pos default, and most of a world's
// blocks are pos blocks (a slot every 12 seconds).
describeSeededApp('GET /analytics/network/active-addresses-daily', analyticsWorld({ ...ANALYTICS_WORLD, powDays: 10, posDays: 1 }), (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('answers every day of the 90-day default window from the blocks, pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const items = expected(s.seeded().blocks.pos, 90);
    assert.deepEqual(res.json(), { items, count: items.length, days: 90, chain: 'pos', network: 'testnet' });
  });

  it('counts pow by the trailing 7 and 30 days, the open day included', async () => {
    const blocks = s.seeded().blocks.pow;
    const body = (await get('?chain=pow')).json();
    const items = expected(blocks, 90);
    assert.deepEqual(body.items, items);
    assert.ok(items.some((d) => d.wau < d.mau), 'the history is long enough for WAU and MAU to differ');
    const open = body.items.at(-1);
    assert.equal(open.day, utcDay(blocks.at(-1)!.timestamp));
    assert.ok(open.dau > 0, 'the open day has activity');
  });

  it('cuts the window to whole days ending with the tip’s day', async () => {
    for (const [window, days] of [['2d', 2], ['24h', 1], ['1w', 7]] as const) {
      const body = (await get(`?chain=pow&window=${window}`)).json();
      assert.deepEqual(body.items, expected(s.seeded().blocks.pow, days), window);
      assert.equal(body.days, days);
      assert.equal(body.count, days);
    }
  });

  it('refuses a malformed window or chain, naming it', async () => {
    for (const [query, param] of [['?window=0d', 'window'], ['?window=11y', 'window'], ['?window=abc', 'window'], ['?chain=btc', 'chain']] as const) {
      const res = await get(query);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === param), res.body);
    }
  });
});

// A store of its own: a test ingests one more block into it.
describeSeededApp('GET /analytics/network/active-addresses-daily over a long history', loadActivityChains, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `${URL}${query}`, headers: AUTH });

  it('matches the blocks on every day, days without blocks zero-filled and still counted in WAU and MAU', async () => {
    for (const chain of ['pow', 'pos'] as ChainId[]) {
      for (const days of [90, 30, 3]) {
        const body = (await get(`?chain=${chain}&window=${days}d`)).json();
        const items = expected(s.seeded()[chain], days);
        assert.deepEqual(body, { items, count: items.length, days, chain, network: TEST_NETWORK[chain] }, `${chain} ${days}d`);
      }
    }
    const pow = expected(s.seeded().pow, 90);
    assert.ok(pow.some((d) => d.dau === 0 && d.wau > 0), 'a day without blocks inside the history');
    assert.ok(pow.some((d) => d.wau < d.mau), 'WAU and MAU differ');
  });

  it('moves the open day with the next block', async () => {
    const pos = activityChains().pos;
    const tip = pos.tip!;
    // One second after the tip, so on its day: two addresses never seen before.
    pos.block((b) => b.transfer(addr('pos', 'late-sender'), addr('pos', 'late-recipient'), 1n), { gap: 1 / pos.blockTime });
    await ingest(s.store(), pos.source(), { batchBlocks: 7 });
    const body = (await get('?chain=pos&window=3d')).json();
    assert.deepEqual(body.items, expected(pos.blocks, 3));
    const before = expected(s.seeded().pos, 1)[0]!;
    assert.equal(body.items.at(-1).day, utcDay(tip.timestamp));
    assert.equal(body.items.at(-1).dau, before.dau + 2);
  });
}, { own: true });

describeSeededApp('GET /analytics/network/active-addresses-daily on an empty store', emptyStore, (s) => {
  it('answers an empty list with the envelope', async () => {
    const res = await s.t().app.inject({ url: `${URL}?chain=pow&window=7d`, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { items: [], count: 0, days: 7, chain: 'pow', network: 'mainnet' });
  });
});
