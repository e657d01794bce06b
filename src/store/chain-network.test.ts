import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { describeEachStore } from '../../test/support/stores.ts';
import { readChainNetworks, writeChainNetwork } from './chain-network.ts';

describeEachStore('chain network facts', (getStore) => {
  it('reads the defaults before a node was seen, then what was written, per chain', async () => {
    const store = getStore();
    await store.query('test.clear', sql`DELETE FROM chain_settings WHERE key IN ('slot_seconds', 'slots_per_epoch', 'address_bytes', 'clock_source')`);
    assert.deepEqual(await readChainNetworks(store), {
      pow: { slotSeconds: 60, slotsPerEpoch: null, addressBytes: 39, clockSource: 'default' },
      pos: { slotSeconds: 12, slotsPerEpoch: 32, addressBytes: 20, clockSource: 'default' },
    });
    await writeChainNetwork(store, 'pos', { slotSeconds: 60, slotsPerEpoch: 128, clockSource: 'beacon' });
    await writeChainNetwork(store, 'pos', { addressBytes: 64 });
    const [row] = await store.query<{ value: string }>('test.read', sql`SELECT value FROM chain_settings WHERE chain = 'pos' AND key = 'slots_per_epoch'`);
    assert.equal(row?.value, '128');
    assert.deepEqual((await readChainNetworks(store)).pos, { slotSeconds: 60, slotsPerEpoch: 128, addressBytes: 64, clockSource: 'beacon' });
    assert.equal((await readChainNetworks(store)).pow.slotSeconds, 60);
    await store.query('test.clear', sql`DELETE FROM chain_settings WHERE key IN ('slot_seconds', 'slots_per_epoch', 'address_bytes', 'clock_source')`);
  });
});
