/**
 * The pipeline never skips a block: a block that does not decode is fetched again; if it stays
 * bad the chain stalls at that height (recorded, nothing stored past it) and, once the source
 * serves it whole, the store equals a clean run's. A source that skips a height stalls the chain
 * too. A fork deeper than the reorg limit, or below the source's finalized height, stalls instead
 * of rewriting history; an allowed deep rollback runs in chunks and ends where a clean run does.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import type { BlockSource, CanonicalBlock, SourceItem } from '../../src/chain/model.ts';
import { writeCheckpoint } from '../../src/ingest/checkpoint.ts';
import { ChainStalledError, ingest } from '../../src/ingest/pipeline.ts';
import { writeRawRows } from '../../src/ingest/raw-store.ts';
import { addBlockRows, emptyRows } from '../../src/ingest/rows.ts';
import { applyRollups, RollupDeltas } from '../../src/rollups/index.ts';
import type { Store } from '../../src/store/store.ts';
import { addr, type BlockBuilder, type ChainBuilder } from '../support/chain-builder.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';
import { randomChain } from '../support/random-chain.ts';
import { storeDigest } from '../fakes/qrl-node/world.ts';

const QUICK = { attempts: 2, delayMs: 1, maxDelayMs: 1 };

/** The canonical chain of `c`, with the block at `bad` undecodable while `isBad()` says so (on every fetch). */
function flakySource(c: ChainBuilder, bad: number, isBad: () => boolean, fetches: { count: number }): BlockSource {
  const item = (block: CanonicalBlock): SourceItem => {
    if (block.height !== bad) return { kind: 'block', block };
    fetches.count++;
    return isBad() ? { kind: 'undecodable', chain: c.chain, height: bad, error: 'transactions[2].value: expected a hex quantity', payload: { raw: '0xdead' } } : { kind: 'block', block };
  };
  return {
    ...c.canonicalSource('flaky'),
    async *blocks(from) {
      for (const block of c.blocks) if (block.height >= from) yield item(block);
      yield { kind: 'caught-up' };
    },
    async blockAt(height) {
      const block = c.blocks.find((b) => b.height === height);
      return block ? item(block) : null;
    },
  };
}

async function maxHeight(store: Store, chain: string): Promise<number> {
  const [row] = await store.query<{ height: number | null }>('test.tip', sql`SELECT max(height)::int AS height FROM blocks WHERE chain = ${chain}`);
  return row?.height ?? -1;
}

async function stallRow(store: Store, chain: string) {
  const [row] = await store.query<{ height: string; reason: string }>('test.stall', sql`SELECT height::text AS height, reason FROM ingest_stalls WHERE chain = ${chain}`);
  return row ?? null;
}

async function cleanDigest(kind: Store['kind'], source: BlockSource): Promise<Record<string, string>> {
  const store = await openTestStore(kind);
  try {
    await ingest(store, source);
    return await storeDigest(store);
  } finally {
    await store.close();
  }
}

describeEachStore('the pipeline never skips a block', (_getStore, kind) => {
  it('a block that stays undecodable stalls the chain there; once served whole, the store equals a clean run', async () => {
    const c = randomChain('pos', 42, 30);
    // A set-aside item that moves no value is recorded once, and the block is stored.
    c.blocks[12]!.deadLetters.push({ item: 'log#3', error: 'log data is not a whole number of words', payload: { data: '0x01' } });
    let broken = true;
    const fetches = { count: 0 };
    const source = flakySource(c, 10, () => broken, fetches);
    const store = await openTestStore(kind);
    try {
      await assert.rejects(ingest(store, source, { batchBlocks: 4, refetch: QUICK }), (error: unknown) => {
        assert.ok(error instanceof ChainStalledError);
        assert.equal(error.stall.height, 10);
        return true;
      });
      assert.equal(fetches.count, 1 + QUICK.attempts, 'the first fetch and each re-fetch');
      assert.equal(await maxHeight(store, 'pos'), 9, 'everything below the bad block is written, nothing past it');
      const stall = await stallRow(store, 'pos');
      assert.equal(stall?.height, '10');
      assert.match(stall!.reason, /block 10 does not decode: transactions\[2\]\.value/);

      // Still bad on the next run: still stalled, still nothing past it.
      await assert.rejects(ingest(store, source, { refetch: QUICK }), ChainStalledError);
      assert.equal(await maxHeight(store, 'pos'), 9);

      broken = false;
      await ingest(store, source, { refetch: QUICK });
      assert.equal(await stallRow(store, 'pos'), null, 'the stall is cleared once the chain gets past it');
      await ingest(store, source, { fromHeight: 0 }); // a replay records nothing twice
      assert.deepEqual(await storeDigest(store), await cleanDigest(kind, flakySource(c, 10, () => false, { count: 0 })));
      const letters = await store.query<{ height: number; item: string }>('test.dlq', sql`SELECT height::int AS height, item FROM dead_letters`);
      assert.deepEqual(letters, [{ height: 12, item: 'log#3' }]);
    } finally {
      await store.close();
    }
  });

  it('a block that decodes when fetched again goes on without a stall', async () => {
    const c = randomChain('pow', 43, 25);
    const fetches = { count: 0 };
    const source = flakySource(c, 7, () => fetches.count === 1, fetches);
    const store = await openTestStore(kind);
    try {
      await ingest(store, source, { batchBlocks: 3, refetch: QUICK });
      assert.equal(fetches.count, 2);
      assert.equal(await maxHeight(store, 'pow'), c.tip!.height);
      assert.equal(await stallRow(store, 'pow'), null);
      assert.deepEqual(await storeDigest(store), await cleanDigest(kind, c.canonicalSource()));
    } finally {
      await store.close();
    }
  });

  for (const skipped of [0, 5]) {
    it(`a store written when block ${skipped} was skipped (a whole-block dead letter, no row) is rewound and ends equal to a clean run`, async () => {
      const c = randomChain('pos', 46, 24);
      const store = await openTestStore(kind);
      try {
        // What an indexer that skipped undecodable blocks left: the blocks below the skipped one, a
        // whole-block dead letter for it, and the blocks above with their rollups (the first of them
        // taken without a parent check, its interval counted from the block below the gap).
        if (skipped > 0) await ingest(store, c.canonicalSource(), { toHeight: skipped - 1 });
        const above = c.blocks.filter((b) => b.height > skipped);
        await store.transaction('test.skipped', async (tx) => {
          const rows = emptyRows();
          for (const block of above) addBlockRows(rows, block);
          await writeRawRows(tx, rows);
          const deltas = new RollupDeltas('pos', c.blocks[skipped - 1]?.timestamp ?? null);
          for (const block of above) deltas.addBlock(block);
          await applyRollups(tx, deltas);
          await writeCheckpoint(tx, 'pos', 'test', { height: c.tip!.height, hash: c.tip!.hash, rollupsHeight: c.tip!.height }, 1_700_000_000);
          await tx.query('test.letter', sql`INSERT INTO dead_letters (chain, source, height, item, error, created_ts) VALUES ('pos', 'test', ${skipped}, NULL, 'bad RLP', 1700000000)`);
        });
        assert.equal(await maxHeight(store, 'pos'), c.tip!.height);

        await ingest(store, c.canonicalSource());
        assert.deepEqual(await storeDigest(store), await cleanDigest(kind, c.canonicalSource()));
      } finally {
        await store.close();
      }
    });
  }

  it('a source that skips a height stalls the chain below the gap', async () => {
    const c = randomChain('pow', 44, 20);
    const gapped: BlockSource = {
      ...c.canonicalSource('gapped'),
      async *blocks(from) {
        for (const block of c.blocks) if (block.height >= from && block.height !== 6) yield { kind: 'block', block };
      },
    };
    const store = await openTestStore(kind);
    try {
      await assert.rejects(ingest(store, gapped, { batchBlocks: 4 }), (error: unknown) => error instanceof ChainStalledError && error.stall.height === 6);
      assert.equal(await maxHeight(store, 'pow'), 5);
      assert.match((await stallRow(store, 'pow'))!.reason, /gave block 7 where 6 was due/);
    } finally {
      await store.close();
    }
  });
});

/** Moves a little value between the genesis holders, so that a new branch changes balances. */
function shuffle(c: ChainBuilder, salt: number) {
  const people = c.blocks[0]!.allocations.map((a) => a.address);
  return (b: BlockBuilder) => {
    b.transfer(people[salt % people.length]!, people[(salt + 1) % people.length]!, 1000n + BigInt(salt));
    b.coinbase(addr('pow', `miner-${salt % 3}`), 5_000_000_000n);
  };
}

describeEachStore('reorgs have a limit', (_getStore, kind) => {
  /** An indexed chain of 40 blocks; then the node's chain forks `depth` blocks below its tip and grows one past it. */
  async function forkedWorld(store: Store, depth: number) {
    const c = randomChain('pow', 45, 40);
    await ingest(store, c.canonicalSource());
    const oldTip = c.tip!;
    c.fork(depth, Array.from({ length: depth + 1 }, (_, i) => shuffle(c, i)));
    const source: BlockSource = {
      ...c.canonicalSource(),
      async *blocks(from) {
        for (const block of c.blocks) if (block.height >= from) yield { kind: 'block', block };
      },
    };
    return { c, oldTip, source };
  }

  it('a fork deeper than the limit stalls and rewrites nothing; with the limit raised it rolls back in chunks to what a clean run gives', async () => {
    const store = await openTestStore(kind);
    try {
      const { c, oldTip, source } = await forkedWorld(store, 12);
      const before = await storeDigest(store);
      await assert.rejects(ingest(store, source, { maxReorgDepth: 8 }), (error: unknown) => {
        assert.ok(error instanceof ChainStalledError);
        assert.match(error.message, /reorg deeper than the limit of 8 blocks/);
        return true;
      });
      const after = await storeDigest(store);
      assert.deepEqual(after, before, 'nothing was rolled back');
      const [tip] = await store.query<{ hash: string }>('test.tip', sql`SELECT hash FROM checkpoints WHERE chain = 'pow'`);
      assert.equal(tip?.hash, oldTip.hash);

      await ingest(store, source, { maxReorgDepth: 20, rollbackChunkBlocks: 5 });
      const reorgs = await store.query<{ depth: number; height: string }>('test.reorgs', sql`SELECT depth, height::text AS height FROM reorgs WHERE chain = 'pow'`);
      assert.deepEqual(reorgs, [{ depth: 12, height: String(oldTip.height - 11) }], 'one reorg recorded, with its whole depth');
      assert.equal(await stallRow(store, 'pow'), null);
      assert.deepEqual(await storeDigest(store), await cleanDigest(kind, c.canonicalSource()));
    } finally {
      await store.close();
    }
  });

  it('a fork below the source\'s finalized block stalls', async () => {
    const store = await openTestStore(kind);
    try {
      const { oldTip, source } = await forkedWorld(store, 4);
      const finalized: BlockSource = { ...source, finalizedHeight: async () => oldTip.height - 2 };
      await assert.rejects(ingest(store, finalized, { maxReorgDepth: 100 }), (error: unknown) => error instanceof ChainStalledError && /finalized block/.test(error.message));
      assert.equal(await maxHeight(store, 'pow'), oldTip.height);
    } finally {
      await store.close();
    }
  });
});
