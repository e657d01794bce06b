/**
 * The batch and write steps alone: what a write takes from the queue, and what its transaction
 * leaves in a real store (raw rows, rollups, events, dead letters, checkpoint, the stall cleared),
 * followed and in a bulk load, whose rollups and events wait for a later write. Expected values
 * come from the chain builder's blocks and the oracle (test/support/expected.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sql from 'sql-template-tag';
import type { CanonicalBlock } from '../../chain/model.ts';
import type { Store } from '../../store/store.ts';
import { recordStall } from '../stalls.ts';
import { addr, ChainBuilder, coins } from '../../../test/support/chain-builder.ts';
import { expectedFromBlocks } from '../../../test/support/expected.ts';
import { describeEachStore, openTestStore } from '../../../test/support/stores.ts';
import { utcDay } from '../../../test/support/utc-day.ts';
import { runContext, type IngestProgress } from './context.ts';
import { accept, isFull, takeBatch, emptyQueue } from './queue.ts';
import { heldHash, settle, startState } from './state.ts';
import { nextCheckpoint, write } from './write.ts';

// 22:00 UTC: with hourly blocks the first two fall on one day, the rest on the next.
const T0 = Date.UTC(2026, 0, 1, 22) / 1000;
const people = ['alice', 'bob', 'carol', 'dave'].map((name) => addr('pos', name));

/** `n` hourly blocks; block i > 0 moves i units from one of four people to the next. */
function chainOf(n: number): CanonicalBlock[] {
  const c = new ChainBuilder('pos', T0, 3600);
  c.block((b) => b.genesis(people.map((address) => ({ address, amount: coins('pos', 1000) }))));
  for (let i = 1; i < n; i++) c.block((b) => void b.transfer(people[i % 4]!, people[(i + 1) % 4]!, BigInt(i)));
  return c.blocks;
}

const source = (blocks: CanonicalBlock[]) => ({ chain: 'pos' as const, name: 'test', async *blocks() { yield* blocks.map((block) => ({ kind: 'block' as const, block })); } });

async function balances(store: Store): Promise<Map<string, string>> {
  const rows = await store.query<{ address: string; balance: string }>('test.balances', sql`SELECT address, balance::text AS balance FROM address_summary WHERE chain = 'pos'`);
  return new Map(rows.map((r) => [r.address, r.balance]));
}

function oracleBalances(blocks: CanonicalBlock[]): Map<string, string> {
  return new Map([...expectedFromBlocks('pos', blocks).addresses].map(([address, e]) => [address, e.balance.toString()]));
}

async function checkpointRow(store: Store) {
  const [row] = await store.query('test.checkpoint', sql`SELECT height::int AS height, hash, rollups_height::int AS rollups FROM checkpoints WHERE chain = 'pos' AND source = 'test'`);
  return row;
}

async function events(store: Store): Promise<string[]> {
  const rows = await store.query<{ kind: string; data: { height?: number; day?: string } }>('test.events', sql`SELECT kind, data FROM chain_events WHERE chain = 'pos' ORDER BY id`);
  return rows.map((r) => (r.kind === 'block' ? `block ${r.data.height}` : `${r.kind} ${r.data.day}`));
}

describe('the batch step', () => {
  const blocks = chainOf(70);
  blocks[2]!.deadLetters.push({ item: 'log#0', error: 'bad log', payload: null });
  blocks[68]!.deadLetters.push({ item: 'log#1', error: 'bad log', payload: null });
  const reorg = { height: 1, prevHash: 'a', newHash: 'b', depth: 1, oldTip: { height: 1, hash: 'a' }, newTip: { height: 1, hash: 'b' } };

  it('takes all but the held-back blocks, their dead letters and the reorgs settled in memory', () => {
    const queue = emptyQueue(null);
    for (const block of blocks) accept(queue, block, 'pos', undefined);
    queue.reorgs.push(reorg);
    assert.equal(queue.txs, 69);
    assert.equal(isFull(queue, { maxBlocks: 6, maxTxs: 1000, holdback: 64 }), true);
    assert.equal(isFull(queue, { maxBlocks: 7, maxTxs: 1000, holdback: 64 }), false);
    assert.equal(isFull(queue, { maxBlocks: 1000, maxTxs: 69, holdback: 0 }), true);

    const batch = takeBatch(queue, 64, false);
    assert.deepEqual(batch.blocks.map((b) => b.height), [0, 1, 2, 3, 4, 5]);
    assert.equal(batch.txCount, 5);
    assert.deepEqual(batch.letters.map((l) => [l.height, l.item, l.chain]), [[2, 'log#0', 'pos']]);
    assert.deepEqual(batch.reorgs, [reorg]);
    assert.deepEqual([queue.blocks[0]!.height, queue.blocks.length, queue.txs], [6, 64, 64]);
    assert.deepEqual(queue.letters.map((l) => l.height), [68]);
    assert.deepEqual(queue.reorgs, []);
    assert.deepEqual(queue.tip, { height: 69, hash: blocks[69]!.hash });

    const rest = takeBatch(queue, 0, true);
    assert.deepEqual([rest.blocks[0]!.height, rest.blocks.length, rest.txCount], [6, 64, 64]);
    assert.deepEqual(rest.letters.map((l) => l.height), [68]);
    assert.deepEqual([queue.blocks, queue.txs, queue.letters], [[], 0, []]);
  });

  it('moves the checkpoint to the last block, the rollups with it only when applied', () => {
    const previous = { height: 5, hash: 'h5', rollupsHeight: 2 };
    assert.deepEqual(nextCheckpoint(previous, blocks[9], true), { height: 9, hash: blocks[9]!.hash, rollupsHeight: 9 });
    assert.deepEqual(nextCheckpoint(previous, blocks[9], false), { height: 9, hash: blocks[9]!.hash, rollupsHeight: 2 });
    assert.deepEqual(nextCheckpoint(null, blocks[9], false), { height: 9, hash: blocks[9]!.hash, rollupsHeight: -1 });
    assert.deepEqual(nextCheckpoint(previous, undefined, true), { height: 5, hash: 'h5', rollupsHeight: 5 });
    assert.equal(nextCheckpoint(null, undefined, true), null);
  });
});

describeEachStore('the write step', (_getStore, kind) => {
  it('followed: one transaction in flight stores the batch, its rollups, its events and the checkpoint', async () => {
    const blocks = chainOf(10);
    blocks[1]!.deadLetters.push({ item: 'log#2', error: 'log data is not a whole number of words', payload: { data: '0x01' } });
    const store = await openTestStore(kind);
    try {
      const reported: IngestProgress[] = [];
      const ctx = runContext(store, source(blocks), { now: () => 1_800_000_000, onProgress: (p) => reported.push(p) });
      const state = startState(ctx, null, null);
      for (const block of blocks) accept(state.queue, block, 'pos', undefined);
      await write(ctx, state, false);
      // In flight: the state already describes the store as it will be, and its blocks are held.
      assert.ok(state.inflight);
      assert.deepEqual(state.written.checkpoint, { height: 9, hash: blocks[9]!.hash, rollupsHeight: 9 });
      assert.equal(state.written.tipTs, blocks[9]!.timestamp);
      assert.equal(state.owed.deltas, null);
      assert.deepEqual(state.queue.blocks, []);
      assert.equal(await heldHash(ctx, state, 4), blocks[4]!.hash);
      await settle(state);

      assert.deepEqual(await checkpointRow(store), { height: 9, hash: blocks[9]!.hash, rollups: 9 });
      const [counts] = await store.query('test.counts', sql`SELECT (SELECT count(*)::int FROM blocks WHERE chain = 'pos') AS blocks, (SELECT count(*)::int FROM transactions WHERE chain = 'pos') AS txs`);
      assert.deepEqual(counts, { blocks: 10, txs: 9 });
      assert.deepEqual(await balances(store), oracleBalances(blocks));
      // Each closed day just before the first block of a later day.
      const firstDay = utcDay(blocks[0]!.timestamp);
      assert.equal(utcDay(blocks[2]!.timestamp) > firstDay && utcDay(blocks[1]!.timestamp) === firstDay, true);
      assert.deepEqual(await events(store), ['block 0', 'block 1', `day ${firstDay}`, ...blocks.slice(2).map((b) => `block ${b.height}`)]);
      const letters = await store.query('test.letters', sql`SELECT height::int AS height, item, error, created_ts::int AS created FROM dead_letters WHERE chain = 'pos'`);
      assert.deepEqual(letters, [{ height: 1, item: 'log#2', error: 'log data is not a whole number of words', created: 1_800_000_000 }]);
      assert.deepEqual(reported, [{ chain: 'pos', height: 9, blocks: 10, transactions: 9, reorgs: 0, deadLetters: 1 }]);
      assert.deepEqual(state.progress, reported[0]);
    } finally {
      await store.close();
    }
  });

  it('bulk: the batches leave the newest blocks queued, and their rollups and events wait for the final write', async () => {
    const blocks = chainOf(70);
    const store = await openTestStore(kind);
    try {
      const ctx = runContext(store, source(blocks), { bulk: true, batchBlocks: 6 });
      const state = startState(ctx, null, null);
      for (const block of blocks) accept(state.queue, block, 'pos', undefined);
      await write(ctx, state, false);
      await settle(state);
      assert.deepEqual(await checkpointRow(store), { height: 5, hash: blocks[5]!.hash, rollups: -1 }, 'the rollups hold nothing yet');
      const [stored] = await store.query<{ n: number }>('test.blocks', sql`SELECT count(*)::int AS n FROM blocks WHERE chain = 'pos'`);
      assert.equal(stored!.n, 6);
      assert.equal(state.queue.blocks.length, 64);
      assert.equal((await balances(store)).size, 0);
      assert.deepEqual(await events(store), []);
      assert.ok(state.owed.deltas);

      await write(ctx, state, true);
      assert.equal(state.inflight, null, 'a final write has committed when it returns');
      assert.equal(state.owed.deltas, null);
      assert.deepEqual(await checkpointRow(store), { height: 69, hash: blocks[69]!.hash, rollups: 69 });
      assert.deepEqual(await balances(store), oracleBalances(blocks));
      // A bulk load closes its days when it finishes (bulk.ts), so only blocks are announced here.
      assert.deepEqual(await events(store), blocks.map((b) => `block ${b.height}`));
    } finally {
      await store.close();
    }
  });

  it('the first write that reaches the stalled height clears the stall', async () => {
    const blocks = chainOf(5);
    const store = await openTestStore(kind);
    try {
      const stall = { chain: 'pos' as const, source: 'test', height: 3, reason: 'block 3 does not decode: x', sinceTs: 1_800_000_000 };
      await recordStall(store, stall);
      const ctx = runContext(store, source(blocks), {});
      const state = startState(ctx, null, stall);
      const stalls = () => store.query<{ height: number }>('test.stalls', sql`SELECT height::int AS height FROM ingest_stalls WHERE chain = 'pos'`);
      for (const block of blocks.slice(0, 3)) accept(state.queue, block, 'pos', undefined);
      await write(ctx, state, true);
      assert.deepEqual(await stalls(), [{ height: 3 }], 'below the stalled height');
      assert.deepEqual(state.written.stall, stall);
      for (const block of blocks.slice(3)) accept(state.queue, block, 'pos', undefined);
      await write(ctx, state, true);
      assert.deepEqual(await stalls(), []);
      assert.equal(state.written.stall, null);
      assert.deepEqual(await checkpointRow(store), { height: 4, hash: blocks[4]!.hash, rollups: 4 });
    } finally {
      await store.close();
    }
  });
});
