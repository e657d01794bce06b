/**
 * `quarry index pos` without a beacon learns the network's slot time from the node's block
 * timestamps (docs/indexing-pos.md, "The network's clock"): a real node (Anvil) mining 60 s slots,
 * one of them missed, and the health route measuring in them.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pino } from 'pino';
import sql from 'sql-template-tag';
import { resolveIndexPosSettings } from '../../src/cli/commands/index-pos.ts';
import { indexPos } from '../../src/ingest/index-pos.ts';
import { startAnvil, type Anvil } from '../support/anvil.ts';
import { AUTH, buildTestApp } from '../support/app.ts';
import { describeOnOneStore } from '../support/stores.ts';

const silent = pino({ level: 'silent' });
const hex = (n: number) => `0x${n.toString(16)}`;

describeOnOneStore('quarry index pos: the slot time from the blocks', (getStore) => {
  let anvil: Anvil;
  before(async () => {
    anvil = await startAnvil();
    // 20 blocks 60 s apart, one slot missed (120 s), 12 more: the genesis block's gap to the first
    // is whatever time passed, an odd one.
    await anvil.rpc('anvil_mine', [hex(20), hex(60)]);
    const latest = await anvil.rpc<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
    await anvil.rpc('evm_mine', [Number(latest.timestamp) + 120]);
    await anvil.rpc('anvil_mine', [hex(12), hex(60)]);
  });
  after(async () => anvil?.stop());

  it('records 60 s from the blocks, and health measures in it', async () => {
    const store = getStore();
    const gaps: number[] = [];
    let previous: number | null = null;
    for (let height = 0; height <= 33; height++) {
      const ts = Number((await anvil.rpc<{ timestamp: string }>('eth_getBlockByNumber', [hex(height), false])).timestamp);
      if (previous !== null && height > 1) gaps.push(ts - previous);
      previous = ts;
    }
    // The node's own gaps after block 1: 60 s slots, one missed.
    assert.deepEqual([...new Set(gaps)].sort((a, b) => a - b), [60, 120]);
    await indexPos(store, resolveIndexPosSettings({ rpc: anvil.url, rpcNamespace: 'eth', progress: false }, {}), { logger: silent });
    const rows = await store.query<{ key: string; value: string }>('t', sql`SELECT key, value FROM chain_settings WHERE chain = 'pos' AND key IN ('slot_seconds', 'clock_source') ORDER BY key`);
    assert.deepEqual(rows, [{ key: 'clock_source', value: 'blocks' }, { key: 'slot_seconds', value: '60' }]);
    const app = await buildTestApp(store);
    try {
      const body = (await app.app.inject({ url: '/api/v1/analytics/network/health', headers: AUTH })).json();
      const pos = Object.entries(body.chains).find(([key]) => key.startsWith('pos:'))![1] as Record<string, unknown>;
      assert.deepEqual([pos.slot_seconds, pos.clock_source], [60, 'blocks']);
    } finally {
      await app.close();
    }
  });
});
