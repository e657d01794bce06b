/** GET /addresses/{address}/activity-heatmap against figures computed from the blocks. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { addr } from '../../support/chain-builder.ts';
import { expectedFromBlocks } from '../../support/expected.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { chainOf, POW, addressGetter } from './fixtures.ts';
import { loadRollupChains, ROLLUP_ADDRESSES } from './rollup-fixtures.ts';

describeSeededApp('GET /addresses/{address}/activity-heatmap', loadRollupChains, (s) => {
  const chains = () => s.seeded();
  const get = addressGetter(s.t);

  for (const address of ROLLUP_ADDRESSES) {
    const chain = chainOf(address);
    it(`${chain} ${address.slice(0, 8)}: activity heatmap`, async () => {
      const expected = expectedFromBlocks(chain, chains()[chain].blocks);
      // Sparse cells by weekday (Monday 0) and hour.
      const cells = [...(expected.heatmap.get(address) ?? new Map())]
        .map(([slot, c]) => {
          const [dow, hour] = slot.split(':').map(Number) as [number, number];
          return { day_of_week: dow, hour_of_day: hour, tx_count_in: c.in, tx_count_out: c.out, tx_count_total: c.total };
        })
        .sort((x, y) => x.day_of_week - y.day_of_week || x.hour_of_day - y.hour_of_day);
      const heat = await get(address, 'activity-heatmap');
      assert.deepEqual(heat.items, cells);
      assert.equal(heat.count, cells.length);
    });
  }

  it('the heatmap puts Monday first and uses UTC hours', async () => {
    // T0 is Monday 20:00 UTC: the first coinbase of pow, to the pool, is on Monday at 22:00.
    const heat = await get(POW.pool, 'activity-heatmap');
    assert.ok(heat.items.some((c: any) => c.day_of_week === 0 && c.hour_of_day === 22));
    assert.ok(heat.items.every((c: any) => c.day_of_week >= 0 && c.day_of_week <= 6 && c.hour_of_day >= 0 && c.hour_of_day <= 23));
  });

  it('unknown addresses: no cells', async () => {
    for (const address of [addr('pow', 'nobody'), addr('pos', 'nobody')]) {
      const chain = chainOf(address);
      const echo = { chain, network: s.t().config.networks[chain], address };
      assert.deepEqual(await get(address, 'activity-heatmap'), { items: [], count: 0, ...echo });
    }
  });
});
