/**
 * A reorg that takes the tip's day back across midnight brings days back into the fee windows
 * (docs/metrics.md, "Top burners"): the rows of the addresses that paid on those days get them
 * back, whether the row was still there or had been dropped when the days left, and the windows
 * equal the oracle's for the tip the chain ends at.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { ingest } from '../../src/ingest/pipeline.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { expectedFromBlocks } from '../support/expected.ts';
import { assertRanksMatch } from '../support/rollup-assertions.ts';
import { describeEachStore } from '../support/stores.ts';

const HOUR = 3600;
const DAY0 = Date.UTC(2026, 4, 1) / 1000;

describeEachStore('fee windows through a reorg across midnight', (getStore) => {
  it('the days that come back into each window are added back, rows dropped at midnight included', async () => {
    const [early, weekly, late, other] = ['early', 'weekly', 'late', 'other'].map((n) => addr('pos', n)) as string[];
    // One block an hour from day 0 00:00 to day 9 01:00; the reorg takes back day 9's blocks and day 8's last.
    const c = new ChainBuilder('pos', DAY0, HOUR);
    c.block((b) => b.genesis([early!, weekly!, late!].map((address) => ({ address, amount: coins('pos', 100) }))));
    for (let h = 1; h <= 9 * 24 + 1; h++) {
      const day = Math.floor(h / 24);
      const hour = h % 24;
      c.block((b) => {
        // weekly pays on day 2 (in the 7-day window of day 8, not of day 9) and on day 5 (a row it keeps).
        if ((day === 2 || day === 5) && hour === 3) b.transfer(weekly!, other!, 1n, { tip: BigInt(day) });
        // early pays only on day 8 before the last hour: in the 1-day window of day 8, dropped at day 9's midnight.
        if (day === 8 && hour === 5) b.transfer(early!, other!, 1n, { tip: 3n });
        // late pays in the blocks the reorg takes back, and on day 7.
        if ((day === 8 && hour === 23) || day === 9 || (day === 7 && hour === 1)) b.transfer(late!, other!, 1n, { tip: 5n });
      });
    }
    assert.equal(Math.floor((c.tip!.timestamp - DAY0) / 86400), 9);
    // The new branch: one block, still on day 8, without late's payments.
    c.fork(3, [(b) => void b.transfer(other!, early!, 1n)]);
    assert.equal(Math.floor((c.tip!.timestamp - DAY0) / 86400), 8);

    const result = await ingest(getStore(), c.source(), { batchBlocks: 1 });
    assert.equal(result.reorgs, 1);
    await assertRanksMatch(getStore(), 'pos', expectedFromBlocks('pos', c.blocks), c.tip!.timestamp);
    // The cases the reorg exercises are there: early's 1-day row came back, weekly's 7-day row gained day 2.
    const rows = await getStore().query<{ days: number; address: string }>('test.windows', sql`SELECT days, address FROM address_fee_windows WHERE chain = 'pos'`);
    const has = (days: number, address: string) => rows.some((r) => r.days === days && r.address === address);
    assert.ok(has(1, early!) && has(7, weekly!) && has(7, late!));
  });
});
