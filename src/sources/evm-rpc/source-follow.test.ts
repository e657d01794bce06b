/**
 * Following a real node's head through a reorg (Anvil evm_snapshot / evm_revert, then a
 * different branch). A minimal in-memory consumer applies the BlockSource reorg protocol, so the
 * source's part (re-yielding, hashAt, blockAt) is tested without the store.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CanonicalBlock, SourceItem } from '../../chain/model.ts';
import { posAddressToHex } from '../../chain/addresses.ts';
import { startAnvil, type Anvil } from '../../../test/support/anvil.ts';
import { driveTraffic, setUpTraffic, type Traffic } from '../../../test/fixtures/traffic.ts';
import { foldBalances } from '../../../test/fixtures/ledger.ts';
import { createRpcClient, type RpcClient } from './transport.ts';
import { createEvmRpcSource, type EvmRpcSource } from './source.ts';

/** The reorg protocol of BlockSource, on a Map. */
function memoryConsumer(source: EvmRpcSource) {
  const stored = new Map<number, CanonicalBlock>();
  let tip = -1;
  let reorgs = 0;
  let caughtUp = 0;
  async function accept(item: SourceItem): Promise<void> {
    if (item.kind === 'caught-up') {
      caughtUp++;
      return;
    }
    if (item.kind !== 'block') throw new Error(`unexpected ${item.kind}`);
    const block = item.block;
    if (stored.get(block.height)?.hash === block.hash) return;
    if (tip >= 0 && (block.height <= tip || block.parentHash !== stored.get(tip)!.hash)) {
      let ancestor = Math.min(block.height - 1, tip);
      if (stored.get(ancestor)?.hash !== block.parentHash) {
        while (ancestor >= 0 && stored.get(ancestor)!.hash !== (await source.hashAt!(ancestor))) ancestor--;
      }
      for (let h = tip; h > ancestor; h--) stored.delete(h);
      tip = ancestor;
      reorgs++;
      for (let h = ancestor + 1; h < block.height; h++) {
        const refetched = await source.blockAt!(h);
        assert.ok(refetched?.kind === 'block');
        stored.set(h, refetched.block);
        tip = h;
      }
    }
    stored.set(block.height, block);
    tip = block.height;
  }
  return { stored, accept, tip: () => tip, reorgs: () => reorgs, caughtUp: () => caughtUp };
}

describe('evm-rpc source following Anvil through a reorg', () => {
  let anvil: Anvil;
  let client: RpcClient;
  let traffic: Traffic;

  before(async () => {
    anvil = await startAnvil({ accounts: 10 });
    traffic = await setUpTraffic(anvil, { accounts: 12 });
    client = createRpcClient({ url: anvil.url });
  });

  after(async () => {
    client?.close();
    await anvil?.stop();
  });

  const head = async () => {
    const block = await anvil.rpc<{ number: string; hash: string }>('eth_getBlockByNumber', ['latest', false]);
    return { height: Number(block.number), hash: block.hash };
  };

  async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('keeps up with new blocks, rolls back a reorganised branch once, and ends equal to the node', async () => {
    const source = createEvmRpcSource({ node: { client, namespace: 'eth' }, follow: true, pollIntervalMs: 20 });
    const consumer = memoryConsumer(source);
    const running = (async () => {
      for await (const item of source.blocks(0)) await consumer.accept(item);
    })();
    running.catch(() => undefined);
    let abandoned = '';
    try {
      const synced = async () => {
        const h = await head();
        return consumer.tip() === h.height && consumer.stored.get(h.height)?.hash === h.hash;
      };

      await until(async () => (await synced()) && consumer.caughtUp() >= 1, 'the backfill and a caught-up mark');
      await driveTraffic(anvil, traffic, { blocks: 3, perBlock: 8, seed: 1 });
      await until(synced, 'new blocks');

      const snapshot = await anvil.rpc<string>('evm_snapshot');
      await driveTraffic(anvil, traffic, { blocks: 3, perBlock: 8, seed: 2 });
      await until(synced, 'branch A');
      abandoned = (await head()).hash;
      assert.equal(await anvil.rpc('evm_revert', [snapshot]), true);
      await driveTraffic(anvil, traffic, { blocks: 5, perBlock: 8, seed: 3 });
      await until(synced, 'branch B');
    } finally {
      source.close();
    }
    await running;

    assert.equal(consumer.reorgs(), 1);
    assert.ok(![...consumer.stored.values()].some((b) => b.hash === abandoned));
    const blocks = [...consumer.stored.values()].sort((a, b) => a.height - b.height);
    blocks.forEach((block, i) => {
      assert.equal(block.height, i);
      if (i > 0) assert.equal(block.parentHash, blocks[i - 1]!.hash);
    });
    for (const [address, balance] of foldBalances(blocks)) {
      assert.equal(balance, BigInt(await anvil.rpc<string>('eth_getBalance', [posAddressToHex(address), 'latest'])), address);
    }
  });

  it('on restart, shows the pipeline the block now at the stored tip when the node is not ahead', async () => {
    const h = await head();
    const source = createEvmRpcSource({ node: { client, namespace: 'eth' } });
    const items: SourceItem[] = [];
    for await (const item of source.blocks(h.height + 1)) items.push(item);
    assert.equal(items.length, 2);
    assert.ok(items[0]!.kind === 'block' && items[0]!.block.hash === h.hash);
    assert.equal(items[1]!.kind, 'caught-up');
  });
});
