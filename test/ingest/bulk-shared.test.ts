/**
 * Both indexers' first syncs at once on an empty store (docs/deploy.md enables both units
 * together): they share one bulk load. Found by the soak: the second to begin read the catalog
 * while the first dropped the indexes ("cache lookup failed for attribute 1 of relation …") and
 * exited. Now the second waits for the first's begin and joins; each chain's finish closes that
 * chain's days only (the other's rollups may still owe deltas held in its run's memory), and the
 * last to finish rebuilds the indexes. The store ends as the two chains ingested block by block.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { backfillsInBulk, beginBulkLoad } from '../../src/ingest/bulk.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store } from '../../src/store/store.ts';
import { storeDigest } from '../fakes/qrl-node/world.ts';
import { addr, ChainBuilder, coins } from '../support/chain-builder.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';

const T0 = Date.UTC(2026, 0, 1, 22, 0, 0) / 1000;

/** Three days of each chain, blocks every 53 minutes, a transfer in most. */
function chain(id: 'pow' | 'pos'): ChainBuilder {
  const c = new ChainBuilder(id, T0, 60 * 53);
  const [alice, bob, carol] = ['alice', 'bob', 'carol'].map((n) => addr(id, n)) as [string, string, string];
  c.block((b) => b.genesis([{ address: alice, amount: coins(id, 1000) }]));
  for (let i = 0; i < 80; i++) {
    c.block((b) => {
      if (i % 4 !== 3) b.transfer(i % 2 ? alice : bob, i % 3 ? carol : bob, BigInt(1000 + i));
      if (id === 'pow') b.coinbase(carol, 6_000_000_000n);
    });
  }
  return c;
}

const secondaryIndexes = sql`SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'transactions' AND indexname NOT LIKE '%_pkey'`;
const dayRows = (store: Store, id: string) => store.query<{ n: number }>('test.days', sql`SELECT count(*)::int AS n FROM chain_events WHERE chain = ${id} AND kind = 'day'`);

describeEachStore('two first syncs at once share one bulk load', (getStore, kind) => {
  it('both begin (the second joins), each closes its own days, the last rebuilds the indexes; the store is the chains ingested block by block', async () => {
    const pow = chain('pow');
    const pos = chain('pos');
    const reference = await openTestStore(kind);
    let expected: Record<string, string>;
    try {
      await ingest(reference, pow.source());
      await ingest(reference, pos.source());
      expected = await storeDigest(reference);
    } finally {
      await reference.close();
    }

    const store = getStore();
    // Two indexers are two processes, each with its own connections (one store on PGlite).
    const url = (store as Store & { url?: string }).url;
    const other = kind === 'postgres' ? createStore(createPostgresDriver(url!, { poolSize: 2 })) : store;
    try {
      const [before] = await store.query<{ n: number }>('test.indexes', secondaryIndexes);
      assert.ok(before!.n > 0);
      assert.equal(await backfillsInBulk(store, 'pow', 0), true);
      const [powLoad, posLoad] = await Promise.all([beginBulkLoad(store, undefined, 'pow'), beginBulkLoad(other, undefined, 'pos')]);
      const [marker] = await store.query<{ value: string }>('test.marker', sql`SELECT value FROM chain_settings WHERE chain = '*' AND key = 'bulk_load'`);
      assert.deepEqual((JSON.parse(marker!.value) as { chains: string[] }).chains.sort(), ['pos', 'pow']);
      assert.equal((await store.query<{ n: number }>('test.indexes', secondaryIndexes))[0]!.n, 0, 'the indexes dropped once');

      // pow is half way when pos catches up and finishes its part.
      await ingest(store, pow.source(), { bulk: true, toHeight: 40 });
      await ingest(other, pos.source(), { bulk: true });
      await posLoad.finish();
      assert.ok((await dayRows(store, 'pos'))[0]!.n >= 2, 'pos closed its days');
      assert.equal((await dayRows(store, 'pow'))[0]!.n, 0, 'pos left pow\'s days alone');
      assert.equal((await store.query<{ n: number }>('test.indexes', secondaryIndexes))[0]!.n, 0, 'the indexes wait for pow');
      // pos's part is over: a restarted pos indexer follows block by block; pow's goes on in bulk.
      assert.equal(await backfillsInBulk(other, 'pos', pos.tip!.height + 1), false);
      assert.equal(await backfillsInBulk(store, 'pow', 41), true);

      await ingest(store, pow.source(), { bulk: true });
      await powLoad.finish();
      assert.equal((await store.query<{ n: number }>('test.indexes', secondaryIndexes))[0]!.n, before!.n, 'the last to finish rebuilt the indexes');
      assert.equal((await store.query('test.marker', sql`SELECT 1 FROM chain_settings WHERE chain = '*' AND key = 'bulk_load'`)).length, 0);
      const actual = await storeDigest(store);
      assert.deepEqual(Object.keys({ ...actual, ...expected }).filter((t) => actual[t] !== expected[t]), []);
    } finally {
      if (other !== store) await other.close();
    }
  });
});
