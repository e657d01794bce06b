/**
 * The pos network's address width at start: the indexer records the node's width on a store
 * without one, and refuses a node whose width differs from the store's, naming both widths,
 * before it writes a block. Anvil's addresses are 20 bytes.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { resolveIndexPosSettings } from '../../src/cli/commands/index-pos.ts';
import { storedAddressWidth } from '../../src/ingest/address-width.ts';
import { indexPos } from '../../src/ingest/index-pos.ts';
import { writeChainNetwork } from '../../src/store/chain-network.ts';
import type { Store } from '../../src/store/store.ts';
import { startAnvil, type Anvil } from '../support/anvil.ts';
import { describeOnOneStore, openTestStore } from '../support/stores.ts';

const silent = pino({ level: 'silent' });

describeOnOneStore('quarry index pos: the address width', (getStore, kind) => {
  let anvil: Anvil;
  before(async () => {
    anvil = await startAnvil({ accounts: 2 });
    await anvil.rpc('anvil_mine', ['0x3']);
  });
  after(() => anvil?.stop());

  const settings = () => resolveIndexPosSettings({ rpc: anvil.url, rpcNamespace: 'eth', progress: false }, {});
  const widthRow = async (store: Store) =>
    (await store.query<{ value: string }>('t', sql`SELECT value FROM chain_settings WHERE chain = 'pos' AND key = 'address_bytes'`)).map((r) => r.value);
  const blockCount = async (store: Store) => Number((await store.query<{ n: string }>('t', sql`SELECT count(*) AS n FROM blocks WHERE chain = 'pos'`))[0]!.n);

  it('refuses a 20-byte node on a store of a 64-byte network, naming both widths, and writes nothing', async () => {
    await writeChainNetwork(getStore(), 'pos', { addressBytes: 64 });
    await assert.rejects(indexPos(getStore(), settings(), { logger: silent }), (error: Error) => {
      assert.match(error.message, new RegExp(`the node at ${anvil.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} has 20-byte addresses, but this store's pos chain holds 64-byte addresses`));
      return true;
    });
    assert.equal(await blockCount(getStore()), 0);
    assert.deepEqual(await widthRow(getStore()), ['64']);
  });

  it('records the node’s width on a store without one, and indexes', async () => {
    const store = await openTestStore(kind);
    try {
      assert.deepEqual(await widthRow(store), []);
      const result = await indexPos(store, settings(), { logger: silent });
      assert.equal(result.height, Number(await anvil.rpc<string>('eth_blockNumber')));
      assert.deepEqual(await widthRow(store), ['20']);
      // Started again, the recorded width binds and matches.
      await indexPos(store, settings(), { logger: silent });
    } finally {
      await store.close();
    }
  });

  it('takes a store that holds pos blocks but no width row as 20 bytes', async () => {
    const store = await openTestStore(kind);
    try {
      await store.query('t', sql`INSERT INTO blocks (chain, height, hash, parent_hash, ts, size, tx_count) VALUES ('pos', 0, '0x01', '0x00', 0, 0, 0)`);
      assert.equal(await storedAddressWidth(store), 20);
    } finally {
      await store.close();
    }
  });
});
