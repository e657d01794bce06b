import assert from 'node:assert/strict';
import { it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { ChainBuilder } from '../../test/support/chain-builder.ts';
import { describeEachStore } from '../../test/support/stores.ts';
import { readChainNetworks, writeBlocksClock } from '../store/chain-network.ts';
import { followChainClock, recordBlocksClock, slotSecondsOf } from './chain-clock.ts';
import { ingest } from './pipeline.ts';

const silent = pino({ level: 'silent' });
const T0 = Date.UTC(2026, 4, 1) / 1000;
/** Timestamps of the given slots on a network of `seconds` per slot. */
const at = (seconds: number, slots: number[]) => slots.map((slot) => T0 + slot * seconds);

it('reads the slot time off block timestamps: exact with missed slots, one odd block aside', () => {
  // 60 s slots, slots 3, 7, 8 and 13 missed: gaps of 1, 2 and 3 slots.
  assert.equal(slotSecondsOf(at(60, [0, 1, 2, 4, 5, 6, 9, 10, 11, 12, 14, 15])), 60);
  // Slot 6's block 7 s late (gaps of 67 and 53 s): still 60, where the gaps' gcd is 1.
  const late = at(60, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  late[6]! += 7;
  assert.equal(slotSecondsOf(late), 60);
  // 12 s slots with most gaps of two slots: the most frequent gap (24 s) leaves four of the eleven
  // out, the slot time none. Slots: gaps 2,2,2,1,2,1,2,3,2,1,2.
  assert.equal(slotSecondsOf(at(12, [0, 2, 4, 6, 7, 9, 10, 12, 15, 17, 18, 20])), 12);
  // A devnet's 3 s slots.
  assert.equal(slotSecondsOf(at(3, [0, 1, 2, 3, 5, 6, 7, 8, 9, 10])), 3);
  // Gaps of zero (blocks of one second, as an instant-mining node makes) are left out.
  assert.equal(slotSecondsOf([0, 0, 1, 1, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9]), 1);
  // Fewer than 8 positive gaps tell nothing yet.
  assert.equal(slotSecondsOf(at(60, [0, 1, 2, 3, 4, 5, 6, 7])), null);
  assert.equal(slotSecondsOf([]), null);
});

/**
 * 300 blocks of 12 s, then 1,100 of 60 s (a 12 s builder's gap of 5), one in 9 slots missed: the
 * latest 1,024 blocks are all of the 60 s part.
 */
function changingChain(): ChainBuilder {
  const c = new ChainBuilder('pos', T0, 12);
  for (let i = 0; i < 300; i++) c.block(() => {}, { gap: i % 9 === 4 ? 2 : 1 });
  for (let i = 0; i < 1100; i++) c.block(() => {}, { gap: i % 9 === 4 ? 10 : 5 });
  return c;
}

const clear = sql`DELETE FROM chain_settings WHERE key IN ('slot_seconds', 'slots_per_epoch', 'clock_source')`;

describeEachStore('the network clock from the stored blocks', (getStore) => {
  it('records nothing before there are blocks', async () => {
    assert.equal(await recordBlocksClock(getStore(), 'pos'), null);
    assert.deepEqual((await readChainNetworks(getStore())).pos, { slotSeconds: 12, slotsPerEpoch: 32, addressBytes: 20, clockSource: 'default' });
  });

  it('records the slot time of the latest blocks with clock source blocks, once', async () => {
    const store = getStore();
    await ingest(store, changingChain().source());
    assert.equal(await recordBlocksClock(store, 'pos', silent), 60);
    assert.deepEqual((await readChainNetworks(store)).pos, { slotSeconds: 60, slotsPerEpoch: 32, addressBytes: 20, clockSource: 'blocks' });
    assert.equal(await recordBlocksClock(store, 'pos', silent), null, 'unchanged: not written again');
    // pow has no block: its default stands.
    assert.deepEqual((await readChainNetworks(store)).pow, { slotSeconds: 60, slotsPerEpoch: null, addressBytes: 39, clockSource: 'default' });
  });

  it('never overwrites the beacon’s clock', async () => {
    const store = getStore();
    await store.query('test.clear', clear);
    await store.query('test.beacon', sql`INSERT INTO chain_settings (chain, key, value) VALUES ('pos', 'slot_seconds', '12'), ('pos', 'slots_per_epoch', '128'), ('pos', 'clock_source', 'beacon')`);
    assert.equal(await recordBlocksClock(store, 'pos', silent), null);
    assert.equal(await writeBlocksClock(store, 'pos', 60), false);
    assert.deepEqual((await readChainNetworks(store)).pos, { slotSeconds: 12, slotsPerEpoch: 128, addressBytes: 20, clockSource: 'beacon' });
  });

  it('is derived when an indexer run ends', async () => {
    const store = getStore();
    await store.query('test.clear', clear);
    await followChainClock(store, 'pos', { follow: false, logger: silent }).done();
    assert.deepEqual((await readChainNetworks(store)).pos, { slotSeconds: 60, slotsPerEpoch: 32, addressBytes: 20, clockSource: 'blocks' });
  });
});
