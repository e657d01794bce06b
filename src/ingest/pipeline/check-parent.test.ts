/**
 * The check-parent step alone, on a real store: what it makes of a block against the chain held,
 * which is partly stored (read back by hash), partly in a write in flight and partly queued.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { CanonicalBlock } from '../../chain/model.ts';
import { addr, ChainBuilder, coins } from '../../../test/support/chain-builder.ts';
import { storeBlocks } from '../../../test/support/stored-chain.ts';
import { describeEachStore } from '../../../test/support/stores.ts';
import { checkParent, nextHeight } from './check-parent.ts';
import { runContext } from './context.ts';
import { accept } from './queue.ts';
import { heldHash, startState } from './state.ts';

const T0 = Date.UTC(2026, 0, 5, 10) / 1000;

function tenBlocks(): ChainBuilder {
  const c = new ChainBuilder('pos', T0, 3600);
  const [alice, bob] = [addr('pos', 'alice'), addr('pos', 'bob')];
  c.block((b) => b.genesis([{ address: alice, amount: coins('pos', 100) }]));
  for (let i = 1; i < 10; i++) c.block((b) => void b.transfer(alice, bob, BigInt(i)));
  return c;
}

describeEachStore('the check-parent step', (getStore) => {
  const c = tenBlocks();
  const [b3, b4, b5, b6, b7, b8, b9] = c.blocks.slice(3) as CanonicalBlock[];

  it('tells extends, replay, fork and gap apart against stored, in-flight and queued blocks', async () => {
    const store = getStore();
    await storeBlocks(store, c.blocks.slice(0, 6));
    const ctx = runContext(store, c.source(), {});
    const state = startState(ctx, { height: 5, hash: b5!.hash, rollupsHeight: 5 }, null);
    // Block 6 in a write that has not committed, block 7 queued.
    state.inflight = { blocks: [b6!], done: Promise.resolve() };
    accept(state.queue, b7!, 'pos', undefined);
    const hashAt = (height: number) => heldHash(ctx, state, height);
    const verdict = (block: CanonicalBlock) => checkParent(block, state.queue.tip, nextHeight(state.queue.tip, undefined), hashAt, 'test');

    assert.deepEqual(state.queue.tip, { height: 7, hash: b7!.hash });
    assert.deepEqual(await verdict(b8!), { kind: 'extends' });
    assert.deepEqual(await verdict(b4!), { kind: 'replay' }, 'the stored hash at 4');
    assert.deepEqual(await verdict(b6!), { kind: 'replay' }, 'the hash in flight at 6');
    assert.deepEqual(await verdict(b7!), { kind: 'replay' }, 'the queued hash at 7');
    assert.deepEqual(await verdict({ ...b4!, hash: '0x' + 'a'.repeat(64) }), { kind: 'fork' }, 'another block at a stored height');
    assert.deepEqual(await verdict({ ...b6!, hash: '0x' + 'b'.repeat(64) }), { kind: 'fork' }, 'another block at the height in flight');
    assert.deepEqual(await verdict({ ...b8!, parentHash: b6!.hash }), { kind: 'fork' }, 'the next height on another parent');
    assert.deepEqual(await verdict(b9!), { kind: 'stall', height: 8, reason: 'test gave block 9 where 8 was due', payload: null });
  });

  it('before the first block, wants the height the run starts at', async () => {
    const ctx = runContext(getStore(), c.source(), {});
    const state = startState(ctx, null, null);
    const hashAt = (height: number) => heldHash(ctx, state, height);
    assert.equal(nextHeight(null, undefined), 0);
    assert.equal(nextHeight(null, 3), 3);
    assert.equal(nextHeight({ height: 7, hash: b7!.hash }, 3), 8);
    assert.deepEqual(await checkParent(b3!, null, 3, hashAt, 'test'), { kind: 'extends' });
    assert.deepEqual(await checkParent(b5!, null, 3, hashAt, 'node'), { kind: 'stall', height: 3, reason: 'node gave block 5 where 3 was due', payload: null });
  });
});
