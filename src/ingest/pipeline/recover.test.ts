/**
 * The recover step alone, on a real store: findFork's common ancestor and new branch (or the
 * stall it asks for), and rollBack's work on the store or, for blocks only queued, in memory.
 * Expected values come from the chain builder's two branches and the oracle's balances.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import type { BlockSource, CanonicalBlock } from '../../chain/model.ts';
import type { Store, StoreKind } from '../../store/store.ts';
import { addr, ChainBuilder, coins } from '../../../test/support/chain-builder.ts';
import { expectedFromBlocks } from '../../../test/support/expected.ts';
import { storeBlocks } from '../../../test/support/stored-chain.ts';
import { describeEachStore, openTestStore } from '../../../test/support/stores.ts';
import { IngestError, runContext, type IngestOptions } from './context.ts';
import { accept } from './queue.ts';
import { findFork, rollBack } from './recover.ts';
import { heldHash, startState } from './state.ts';

const T0 = Date.UTC(2026, 0, 5, 10) / 1000;
const people = ['alice', 'bob', 'carol'].map((name) => addr('pos', name));

/** 20 blocks (0..19), then a fork 3 below the tip: the new branch is 17..20. */
function forkedChain() {
  const c = new ChainBuilder('pos', T0, 600);
  c.block((b) => b.genesis(people.map((address) => ({ address, amount: coins('pos', 100) }))));
  for (let i = 1; i < 20; i++) c.block((b) => void b.transfer(people[i % 3]!, people[(i + 1) % 3]!, 1000n * BigInt(i)));
  const old = [...c.blocks];
  c.fork(3, [0, 1, 2, 3].map((i) => (b) => void b.transfer(people[2]!, people[0]!, 7n + BigInt(i))));
  return { c, old, fresh: c.blocks.slice(17) };
}

/** A store holding the old branch up to `stored`, the rest of it up to 19 queued. */
async function world(kind: StoreKind, stored: number, options: IngestOptions = {}, source?: (s: BlockSource) => BlockSource) {
  const { c, old, fresh } = forkedChain();
  const store = await openTestStore(kind);
  await storeBlocks(store, old.slice(0, stored + 1));
  const ctx = runContext(store, source ? source(c.canonicalSource()) : c.canonicalSource(), options);
  const state = startState(ctx, { height: stored, hash: old[stored]!.hash, rollupsHeight: stored }, null);
  for (const block of old.slice(stored + 1)) accept(state.queue, block, 'pos', undefined);
  const hashAt = (height: number) => heldHash(ctx, state, height);
  const find = (block: CanonicalBlock) => findFork(ctx, block, state.queue.tip!, state.written.checkpoint, hashAt);
  return { c, old, fresh, store, ctx, state, find };
}

async function storedTip(store: Store) {
  const [row] = await store.query<{ height: number; hash: string }>('test.tip', sql`SELECT height::int AS height, hash FROM blocks WHERE chain = 'pos' ORDER BY height DESC LIMIT 1`);
  return row;
}

describeEachStore('the recover step', (_getStore, kind) => {
  it('finds the common ancestor of a stored fork, and rolls the store back to it', async () => {
    const { old, fresh, store, ctx, state, find } = await world(kind, 19);
    try {
      const fork = await find(fresh.at(-1)!);
      assert.equal(fork.kind, 'fork');
      if (fork.kind !== 'fork') return;
      assert.equal(fork.ancestor, 16);
      assert.deepEqual(fork.branch.map((b) => b.hash), fresh.slice(0, 3).map((b) => b.hash), 'the new branch below the block, from the source');

      await rollBack(ctx, state, fork.ancestor, fork.branch[0]!, fresh.at(-1)!);
      assert.deepEqual(await storedTip(store), { height: 16, hash: old[16]!.hash });
      const [checkpoint] = await store.query('test.checkpoint', sql`SELECT height::int AS height, hash, rollups_height::int AS rollups FROM checkpoints WHERE chain = 'pos'`);
      assert.deepEqual(checkpoint, { height: 16, hash: old[16]!.hash, rollups: 16 });
      const reorgs = await store.query('test.reorgs', sql`SELECT height::int AS height, prev_hash, new_hash, depth::int AS depth FROM reorgs WHERE chain = 'pos'`);
      assert.deepEqual(reorgs, [{ height: 17, prev_hash: old[17]!.hash, new_hash: fresh[0]!.hash, depth: 3 }]);
      const events = await store.query<{ kind: string; data: unknown }>('test.events', sql`SELECT kind, data FROM chain_events WHERE chain = 'pos' ORDER BY id`);
      assert.deepEqual(events, [
        { kind: 'reorg', data: { depth: 3, ancestor_height: 16, old_tip_height: 19, old_tip_hash: old[19]!.hash, new_tip_height: 20, new_tip_hash: fresh[3]!.hash } },
      ]);
      const expected = expectedFromBlocks('pos', old.slice(0, 17));
      const balances = await store.query<{ address: string; balance: string }>('test.balances', sql`SELECT address, balance::text AS balance FROM address_summary WHERE chain = 'pos'`);
      assert.deepEqual(new Map(balances.map((r) => [r.address, r.balance])), new Map([...expected.addresses].map(([a, e]) => [a, e.balance.toString()])));
      assert.deepEqual(state.queue.tip, { height: 16, hash: old[16]!.hash });
      assert.deepEqual(state.written.checkpoint, { height: 16, hash: old[16]!.hash, rollupsHeight: 16 });
      assert.equal(state.progress.height, 16);
      assert.equal(state.progress.reorgs, 1);
      assert.deepEqual(state.queue.reorgs, [], 'recorded with the rollback, not queued');
    } finally {
      await store.close();
    }
  });

  it('settles a fork of queued blocks in memory, even below the finalized block, and queues its record', async () => {
    const { old, fresh, store, ctx, state, find } = await world(kind, 10, {}, (s) => ({ ...s, finalizedHeight: async () => 18 }));
    try {
      const fork = await find(fresh.at(-1)!);
      assert.equal(fork.kind === 'fork' && fork.ancestor, 16);
      if (fork.kind !== 'fork') return;
      await rollBack(ctx, state, fork.ancestor, fork.branch[0]!, fresh.at(-1)!);
      assert.deepEqual(await storedTip(store), { height: 10, hash: old[10]!.hash }, 'the store is not touched');
      assert.deepEqual(state.queue.blocks.map((b) => b.height), [11, 12, 13, 14, 15, 16]);
      assert.equal(state.queue.txs, 6);
      assert.deepEqual(state.queue.tip, { height: 16, hash: old[16]!.hash });
      assert.deepEqual(state.queue.reorgs, [
        { height: 17, prevHash: old[17]!.hash, newHash: fresh[0]!.hash, depth: 3, oldTip: { height: 19, hash: old[19]!.hash }, newTip: { height: 20, hash: fresh[3]!.hash } },
      ]);
      assert.equal(state.progress.reorgs, 0, 'counted when the next write records it');
    } finally {
      await store.close();
    }
  });

  it('drops the dead letters of the queued blocks it orphans, and keeps those below the fork', async () => {
    const { old, fresh, ctx, state, find, store } = await world(kind, 10);
    try {
      // Set-aside items in queued blocks 12 (kept) and 18 (orphaned by the fork at 16).
      state.queue.letters.push(
        { chain: 'pos', height: 12, item: old[12]!.transactions[0]!.hash, error: 'set aside', payload: null },
        { chain: 'pos', height: 18, item: old[18]!.transactions[0]!.hash, error: 'set aside', payload: null },
      );
      const fork = await find(fresh.at(-1)!);
      if (fork.kind !== 'fork') return assert.fail(`expected a fork, got ${fork.kind}`);
      await rollBack(ctx, state, fork.ancestor, fork.branch[0]!, fresh.at(-1)!);
      assert.deepEqual(state.queue.letters.map((l) => l.height), [12]);
    } finally {
      await store.close();
    }
  });

  it('needs no walk back when the block’s parent is held', async () => {
    const { fresh, store, find } = await world(kind, 19, {}, ({ hashAt: _hashAt, ...s }) => s);
    try {
      assert.deepEqual(await find(fresh[0]!), { kind: 'fork', ancestor: 16, branch: [] });
      await assert.rejects(find(fresh.at(-1)!), (error: unknown) => error instanceof IngestError && /block 20 does not extend the indexed chain and test cannot tell where it forked/.test(error.message));
    } finally {
      await store.close();
    }
  });

  it('asks for a stall past the reorg limit, below the finalized block, or with no block in common', async () => {
    const cases: [IngestOptions, (s: BlockSource) => BlockSource, number, string][] = [
      [{ maxReorgDepth: 2 }, (s) => s, 17, "a reorg deeper than the limit of 2 blocks: test's chain leaves the indexed one below height 17 (indexed tip 19)"],
      [{}, (s) => ({ ...s, finalizedHeight: async () => 18 }), 17, 'test reorganised below its own finalized block 18 (common ancestor 16): finalized history is not rewritten'],
      [{}, (s) => ({ ...s, hashAt: async () => '0x' + 'f'.repeat(64) }), 0, 'test shares no block with the indexed chain, not even the genesis block: is it a node of another network?'],
    ];
    for (const [options, source, height, reason] of cases) {
      const { old, fresh, store, find } = await world(kind, 19, options, source);
      try {
        assert.deepEqual(await find(fresh.at(-1)!), { kind: 'stall', height, reason, payload: null });
        assert.deepEqual(await storedTip(store), { height: 19, hash: old[19]!.hash }, 'nothing rolled back');
      } finally {
        await store.close();
      }
    }
  });
});
