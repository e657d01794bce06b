import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH, buildTestApp } from '../../../support/app.ts';
import { ANALYTICS_WORLD, analyticsWorld, loadAnalyticsWorld, type AnalyticsWorld } from '../../../support/analytics-world.ts';
import { utcDay } from '../../../support/utc-day.ts';
import { expectedChainTimeline, expectedTimeline, METRICS, type ChainTimeline, type Metric } from '../../../support/expected-timeline.ts';
import { describeSeededApp, type SeededApp } from '../../../support/seeded-app.ts';
import { describeOnOneStore } from '../../../support/stores.ts';

const UNITS: Record<Metric, [string, string]> = {
  transactions: ['transactions', 'count'],
  blocks: ['blocks', 'count'],
  gas: ['gas', 'count'],
  wallets: ['addresses', 'cumulative'],
  'active-wallets': ['addresses', 'count'],
  'active-wallets-100': ['addresses', 'count'],
  'active-wallets-1000': ['addresses', 'count'],
  supply: ['coins', 'cumulative'],
  block_time: ['seconds', 'average'],
  block_size: ['bytes', 'average'],
  'active-addresses': ['addresses', 'count'],
  'active-addresses-excl-payouts': ['addresses', 'count'],
};

function timelines(w: AnalyticsWorld): { pow: ChainTimeline; pos: ChainTimeline } {
  return { pow: expectedChainTimeline('pow', w.blocks.pow), pos: expectedChainTimeline('pos', w.blocks.pos) };
}

const get = <T>(s: SeededApp<T>, path: string) => s.t().app.inject({ url: `/api/v1/analytics/timeline/${path}`, headers: AUTH });

describeSeededApp('GET /analytics/timeline/{metric} with a migration cutover', loadAnalyticsWorld, (s) => {
  let expected: { pow: ChainTimeline; pos: ChainTimeline } | undefined;
  const t = () => (expected ??= timelines(s.seeded()));

  it('the world exercises every figure: payouts, rich and poor active wallets, a cutover inside pos', () => {
    const cutover = s.seeded().world.options.migrationCutover!;
    assert.ok(utcDay(cutover) > t().pos.first && utcDay(cutover) <= t().pos.tip);
    for (const chain of ['pow', 'pos'] as const) {
      const v = t()[chain].values;
      const total = (m: Metric) => [...v[m].values()].reduce((a, b) => a + b, 0);
      assert.ok(total('active-wallets-100') > total('active-wallets-1000') && total('active-wallets-1000') > 0, chain);
      assert.ok(total('active-wallets-100') < total('active-wallets'), chain);
      assert.ok(total('active-addresses') > total('active-addresses-excl-payouts'), chain);
    }
  });

  for (const metric of METRICS) {
    it(`${metric}: pow before the cutover's day, pos from it, every day from the blocks`, async () => {
      const cutover = s.seeded().world.options.migrationCutover!;
      const res = await get(s, `${metric}?window=10y`);
      assert.equal(res.statusCode, 200, res.body);
      const powBlocks = s.seeded().blocks.pow;
      const cutoverBlock = powBlocks.find((b) => b.timestamp >= cutover)?.height ?? null;
      const [unit, kind] = UNITS[metric];
      assert.deepEqual(res.json(), {
        metric, unit, kind, phase: 'stitched', cutover_block: cutoverBlock, cutover_date: utcDay(cutover), window_days: 3650,
        ...expectedTimeline(t(), metric, 3650, utcDay(cutover)),
      });
    });
  }

  it('the default window is 90 days; a short one keeps the last days of the stitched series', async () => {
    const cutoverDay = utcDay(s.seeded().world.options.migrationCutover!);
    const body = (await get(s, 'transactions')).json();
    assert.equal(body.window_days, 90);
    assert.deepEqual(body.points, expectedTimeline(t(), 'transactions', 90, cutoverDay).points);
    const one = (await get(s, 'supply?window=24h')).json();
    assert.equal(one.window_days, 1);
    assert.deepEqual(one.points, expectedTimeline(t(), 'supply', 1, cutoverDay).points);
    assert.equal(one.points.length, 1);
    assert.equal(one.points[0].chain, 'pos');
  });

  it('snaps the window up to a UI tier; more than 10 years is refused', async () => {
    for (const [window, days] of [['1d', 1], ['2d', 7], ['8d', 14], ['100d', 180], ['2w', 14], ['1y', 365], ['366d', 730], ['10y', 3650], ['3650d', 3650]] as const) {
      const res = await get(s, `blocks?window=${window}`);
      assert.equal(res.statusCode, 200, `${window}: ${res.body}`);
      assert.equal(res.json().window_days, days, window);
    }
    for (const window of ['11y', '3651d', '0d', 'all', 'abc']) {
      const res = await get(s, `blocks?window=${window}`);
      assert.equal(res.statusCode, 400, window);
      assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.ok(res.json().errors.some((e: { param: string }) => e.param === 'window'), res.body);
    }
  });

  it('refuses an unknown metric, naming it and listing the allowed ones', async () => {
    for (const metric of ['tps', 'Transactions', 'active_wallets']) {
      const res = await get(s, metric);
      assert.equal(res.statusCode, 400, metric);
      const error = res.json().errors.find((e: { param: string }) => e.param === 'metric');
      assert.ok(error, res.body);
      for (const allowed of METRICS) assert.ok(res.body.includes(allowed), `${allowed} listed`);
    }
  });
});

// A world of its own (loaded once per run): one pos day is enough for the pos preview, and most of a
// world's blocks are pos blocks (a slot every 12 seconds).
describeSeededApp(
  'GET /analytics/timeline/{metric} without a migration cutover',
  analyticsWorld({ ...ANALYTICS_WORLD, migrationCutover: null, posDays: 1 }),
  (s) => {
    let expected: { pow: ChainTimeline; pos: ChainTimeline } | undefined;
    const t = () => (expected ??= timelines(s.seeded()));

    for (const metric of METRICS) {
      it(`${metric}: points are the pow series, preview the pos series`, async () => {
        const res = await get(s, `${metric}?window=7d`);
        assert.equal(res.statusCode, 200, res.body);
        const [unit, kind] = UNITS[metric];
        assert.deepEqual(res.json(), {
          metric, unit, kind, phase: 'pow', cutover_block: null, cutover_date: null, window_days: 7, ...expectedTimeline(t(), metric, 7, null),
        });
      });
    }

    it('a one-day window holds each chain’s open day', async () => {
      const body = (await get(s, 'active-addresses?window=1d')).json();
      assert.deepEqual(body.points, expectedTimeline(t(), 'active-addresses', 1, null).points);
      assert.deepEqual(body.preview, expectedTimeline(t(), 'active-addresses', 1, null).preview);
      assert.deepEqual([body.points.length, body.preview.length], [1, 1]);
    });
  },
);

describeOnOneStore('GET /analytics/timeline/{metric} on an empty store', (getStore) => {
  it('answers empty series and null cutover fields', async () => {
    const app = await buildTestApp(getStore());
    try {
      for (const metric of METRICS) {
        const res = await app.app.inject({ url: `/api/v1/analytics/timeline/${metric}`, headers: AUTH });
        assert.equal(res.statusCode, 200, res.body);
        const [unit, kind] = UNITS[metric];
        assert.deepEqual(res.json(), { metric, unit, kind, phase: 'pow', cutover_block: null, cutover_date: null, window_days: 90, points: [], preview: [] });
      }
    } finally {
      await app.close();
    }
  });
});
