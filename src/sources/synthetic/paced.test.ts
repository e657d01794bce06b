/**
 * A live world's chain released on its clock (paced.ts): the history's blocks at once, then one
 * block as its time comes, the pool holding the transactions of the hour's blocks made ahead. The
 * expected blocks come from the same world's source read whole (the generator is deterministic).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { CanonicalBlock } from '../../chain/model.ts';
import { createSyntheticWorld } from './index.ts';
import { collect } from './source.ts';
import { createPacedSource, createWorldPoolReader, worldClock } from './paced.ts';

const END = Date.UTC(2026, 5, 10, 12) / 1000;
const LIVE_FROM = END - 6 * 3600;

function world() {
  return createSyntheticWorld({ seed: 7, powDays: 2, posDays: 1, scale: 3000, end: new Date(END * 1000), reorgEvery: 0, live: { from: new Date(LIVE_FROM * 1000), reorgEvery: 0 } });
}

it('releases the history at once, then each block as the world clock reaches it, with the next hour as its pool', async () => {
  const all = (await collect(world().pow)).flatMap((item) => (item.kind === 'block' ? [item.block] : []));
  const canonical = new Map<number, CanonicalBlock>();
  for (const block of all) canonical.set(block.height, block);
  let wall = LIVE_FROM * 1000;
  const source = createPacedSource(world().pow, worldClock(LIVE_FROM, 1, () => wall));
  const pool = createWorldPoolReader(source);
  const released: number[] = [];
  const iterator = source.blocks(0)[Symbol.asyncIterator]();
  try {
    let item = await iterator.next();
    while (item.value.kind === 'block') {
      released.push(item.value.block.height);
      item = await iterator.next();
    }
    assert.equal(item.value.kind, 'caught-up');
    const due = [...canonical.values()].filter((b) => b.timestamp <= LIVE_FROM);
    assert.deepEqual(released, due.map((b) => b.height), 'every block of the history, in order');
    // The pool: the transactions of the blocks of the next hour, coinbases aside.
    // The pool: the transactions of the blocks made ahead, up to the first past the next hour, coinbases aside.
    const later = [...canonical.values()].filter((b) => b.height > due.at(-1)!.height);
    const made = later.slice(0, later.findIndex((b) => b.timestamp > LIVE_FROM + 3600) + 1);
    const read = await pool.read(5000);
    const expected = made.flatMap((b) => b.transactions.filter((tx) => tx.type !== 'coinbase').map((tx) => tx.hash));
    assert.ok(expected.length > 0, 'a pool to compare');
    assert.deepEqual(read.txs.map((tx) => tx.hash), expected);
    assert.equal(read.complete, true);
    // The next block comes when the clock reaches its time.
    const next = canonical.get(due.at(-1)!.height + 1)!;
    const pending = iterator.next();
    wall = (next.timestamp + 1) * 1000;
    const got = await pending;
    assert.equal(got.value.kind === 'block' && got.value.block.hash, next.hash);
    assert.ok(!(await pool.read(5000)).txs.some((tx) => next.transactions.some((t) => t.hash === tx.hash)), 'its transactions left the pool');
  } finally {
    source.close();
    await iterator.return?.();
  }
});

it('runs a faster clock from the end of the history', () => {
  let wall = 1_000_000_000;
  const clock = worldClock(1_000_000, 60, () => wall);
  wall = (1_000_000 + 10) * 1000;
  assert.equal(clock.now(), 1_000_000 + 600);
  assert.equal(clock.msUntil(1_000_000 + 660), 1000);
});
