import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH } from '../../../support/app.ts';
import { blocksByDay, daysBetween, loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';

/** The last `days` days of the chain's history (ending with the tip's day), by the metric's definition. */
function expected(w: AnalyticsWorld, chain: 'pow' | 'pos', days: number) {
  const blocks = w.blocks[chain];
  const byDay = blocksByDay(blocks);
  const last = utcDay(blocks.at(-1)!.timestamp);
  const all = daysBetween(utcDay(blocks[0]!.timestamp), last);
  return all.slice(Math.max(0, all.length - days)).map((day) => {
    const sizes = (byDay.get(day) ?? []).map((b) => b.size);
    const total = sizes.reduce((a, b) => a + b, 0);
    return {
      day,
      block_count: sizes.length,
      avg_block_size: sizes.length ? Math.floor(total / sizes.length) : 0,
      max_block_size: sizes.length ? Math.max(...sizes) : 0,
      total_block_size: String(total),
    };
  });
}

describeSeededApp('GET /analytics/block-size', loadAnalyticsWorld, (s) => {
  const get = (query: string) => s.t().app.inject({ url: `/api/v1/analytics/block-size${query}`, headers: AUTH });

  it('answers every day of the window from the blocks, pos by default', async () => {
    const res = await get('');
    assert.equal(res.statusCode, 200, res.body);
    const items = expected(s.seeded(), 'pos', 30);
    assert.deepEqual(res.json(), { items, count: items.length, chain: 'pos', network: 'testnet', window_days: 30 });
  });

  it('cuts the window to whole days ending with the tip’s day', async () => {
    for (const [window, days] of [['2d', 2], ['24h', 1], ['90m', 1], ['1w', 7]] as const) {
      const body = (await get(`?chain=pow&window=${window}`)).json();
      assert.deepEqual(body.items, expected(s.seeded(), 'pow', days), window);
      assert.equal(body.window_days, days);
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
