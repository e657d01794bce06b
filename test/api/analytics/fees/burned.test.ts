/** GET /pos/fees/burned/daily, /pos/fees/burned/summary and /analytics/network/gas-trends: one definition of the burn, three views. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { AUTH, buildTestApp } from '../../../support/app.ts';
import { loadAnalyticsWorld } from '../../../support/analytics-world.ts';
import { coinsText, dailyFigures, lastDays, type DayFigures } from '../../../support/expected-network.ts';
import { burnedIn, lastSeconds } from '../../../support/expected-windows.ts';
import { describeSeededApp } from '../../../support/seeded-app.ts';
import { openTestStore } from '../../../support/stores.ts';

const burnItem = (day: string, d: DayFigures) => ({
  day,
  fee_burned_planck: d.burned.toString(),
  fee_burned_pos: coinsText(d.burned, 18),
  block_count: d.blocks,
  avg_base_fee_planck: d.blocks ? (d.baseFeeSum / BigInt(d.blocks)).toString() : '0',
});

describeSeededApp('fee burn', loadAnalyticsWorld, (s, kind) => {
  const get = async (url: string) => {
    const res = await s.t().app.inject({ url, headers: AUTH });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  it('GET /pos/fees/burned/daily: base fee × gas used of each day’s blocks, with gas and blocks', async () => {
    const days = dailyFigures(s.seeded().blocks.pos);
    const items = lastDays(days, 30).map(([day, d]) => ({ ...burnItem(day, d), gas_used_total: d.gasUsed.toString() }));
    assert.ok(items.some((i) => i.fee_burned_planck !== '0'), 'the fixture burns');
    assert.deepEqual(await get('/api/v1/pos/fees/burned/daily'), { items, days: 30, network: 'testnet' });
    assert.deepEqual((await get('/api/v1/pos/fees/burned/daily?window=2d')).items, items.slice(-2));
  });

  it('GET /analytics/network/gas-trends: the same days', async () => {
    const items = lastDays(dailyFigures(s.seeded().blocks.pos), 7).map(([day, d]) => burnItem(day, d));
    assert.deepEqual(await get('/api/v1/analytics/network/gas-trends?window=7d'), { items, days: 7, chain: 'pos' });
  });

  it('GET /pos/fees/burned/summary: the whole history, the 24 hours ending at the latest block, 7 and 30 days', async () => {
    const days = [...dailyFigures(s.seeded().blocks.pos).entries()];
    const sum = (list: typeof days) => list.reduce((a, [, d]) => a + d.burned, 0n);
    const total = sum(days);
    assert.deepEqual(await get('/api/v1/pos/fees/burned/summary'), {
      network: 'testnet',
      total_planck: total.toString(),
      total_pos: coinsText(total, 18),
      total_blocks: s.seeded().blocks.pos.length,
      // The blocks with a time in (T − 86,400, T], T the latest block's time.
      planck_24h: burnedIn(s.seeded().blocks.pos, lastSeconds(s.seeded().blocks.pos, 86_400)).toString(),
      planck_7d: sum(days.slice(-7)).toString(),
      planck_30d: sum(days.slice(-30)).toString(),
      latest_day: days.at(-1)![0],
    });
  });

  it('empty shapes before the pos chain has a block', async () => {
    const store = await openTestStore(kind);
    const t = await buildTestApp(store);
    try {
      const json = async (url: string) => (await t.app.inject({ url, headers: AUTH })).json();
      assert.deepEqual(await json('/api/v1/pos/fees/burned/daily'), { items: [], days: 30, network: 'testnet' });
      assert.deepEqual(await json('/api/v1/analytics/network/gas-trends'), { items: [], days: 30, chain: 'pos' });
      assert.deepEqual(await json('/api/v1/pos/fees/burned/summary'), {
        network: 'testnet', total_planck: null, total_pos: null, total_blocks: null, planck_24h: null, planck_7d: null, planck_30d: null, latest_day: null,
      });
      assert.equal((await t.app.inject({ url: '/api/v1/pos/fees/burned/daily?window=7', headers: AUTH })).statusCode, 400);
    } finally {
      await t.close();
      await store.close();
    }
  });
});
