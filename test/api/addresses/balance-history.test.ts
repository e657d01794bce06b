/** GET /addresses/{address}/balance-history against figures computed from the blocks. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { addr } from '../../support/chain-builder.ts';
import { expectedFromBlocks, type ExpectedDay } from '../../support/expected.ts';
import { describeSeededApp } from '../../support/seeded-app.ts';
import { chainOf, POS, POW, addressGetter } from './fixtures.ts';
import { loadRollupChains, ROLLUP_ADDRESSES } from './rollup-fixtures.ts';

const DAY = 86_400;
const iso = (ts: number) => new Date(ts * 1000).toISOString().slice(0, 19);
const dayOf = (ts: number) => iso(ts).slice(0, 10);

describeSeededApp('GET /addresses/{address}/balance-history', loadRollupChains, (s) => {
  const chains = () => s.seeded();
  const get = addressGetter(s.t);

  for (const address of ROLLUP_ADDRESSES) {
    const chain = chainOf(address);
    it(`${chain} ${address.slice(0, 8)}: balance history`, async () => {
      const blocks = chains()[chain].blocks;
      const expected = expectedFromBlocks(chain, blocks);
      const a = expected.addresses.get(address);
      const tipDay = dayOf(blocks.at(-1)!.timestamp);

      // Every day from the first activity to the tip's day, the running sum being the balance.
      const days = [...(expected.daily.get(address) ?? new Map<string, ExpectedDay>())].filter(([, d]) => d.received > 0n || d.sentWithFees > 0n || d.txIn > 0 || d.txOut > 0);
      const series: Record<string, unknown>[] = [];
      if (days.length > 0) {
        let running = 0n;
        const byDay = new Map(days);
        for (let ts = Date.parse(`${days.map(([d]) => d).sort()[0]}T00:00:00Z`) / 1000; dayOf(ts) <= tipDay; ts += DAY) {
          const d = byDay.get(dayOf(ts));
          running += (d?.received ?? 0n) - (d?.sentWithFees ?? 0n);
          series.push({
            day: dayOf(ts), received: String(d?.received ?? 0n), sent_with_fees: String(d?.sentWithFees ?? 0n),
            // The fixture chains let an address spend before it is credited; a negative amount is answered as null.
            tx_count_in: d?.txIn ?? 0, tx_count_out: d?.txOut ?? 0, net_delta_cumulative: running < 0n ? null : running.toString(),
          });
        }
        assert.equal(running, a!.balance, 'the last point is the balance');
      }
      const all = await get(address, 'balance-history');
      assert.deepEqual(all.items, series);
      assert.equal(all.count, series.length);
      assert.equal(all.window_days, null);
      assert.deepEqual((await get(address, 'balance-history?window=all')).items, series);
      for (const [window, n] of [['3d', 3], ['1d', 1], ['36h', 2], ['2w', 14], ['10y', 3650]] as const) {
        const body = await get(address, `balance-history?window=${window}`);
        assert.deepEqual(body.items, series.slice(-n), window);
        assert.equal(body.window_days, n);
      }
      if (address === POW.user || address === POS.alice) assert.ok(series.length > days.length, 'quiet days are filled');
    });
  }

  it('unknown addresses: an empty series, with and without a window', async () => {
    for (const address of [addr('pow', 'nobody'), addr('pos', 'nobody')]) {
      const chain = chainOf(address);
      const echo = { chain, network: s.t().config.networks[chain], address };
      assert.deepEqual(await get(address, 'balance-history'), { items: [], count: 0, window_days: null, ...echo });
      assert.deepEqual(await get(address, 'balance-history?window=30d'), { items: [], count: 0, window_days: 30, ...echo });
    }
  });
});
