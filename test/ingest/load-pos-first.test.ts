/**
 * The demo's two-stage load (`loadSyntheticWorldPosFirst`: pos whole through a bulk load, then pow
 * into the serving store, its indexes narrowed to pos's rows meanwhile) gives the very store the
 * one-stage bulk load gives (every table's digest, rollups included, and the same indexes), says
 * while it runs which chain is loading, and serves pos through index plans while pow loads.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql, { raw } from 'sql-template-tag';
import { loadSyntheticWorld, loadSyntheticWorldPosFirst } from '../../src/ingest/load-synthetic.ts';
import { createChainLoads } from '../../src/ingest/loading.ts';
import { createSyntheticWorld } from '../../src/sources/synthetic/index.ts';
import { storeDigest } from '../fakes/qrl-node/world.ts';
import type { Store } from '../../src/store/store.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';

const END = Date.UTC(2026, 2, 1) / 1000;
const LIVE_FROM = END - 2 * 86_400 - 3_600;
const world = () =>
  createSyntheticWorld({
    seed: 5,
    powDays: 7,
    posDays: 6,
    scale: 1500,
    end: new Date(END * 1000),
    migrationCutover: new Date((LIVE_FROM - 3 * 86_400) * 1000),
    powMultiSig: 2,
    powOtsReuses: 2,
    live: { from: new Date(LIVE_FROM * 1000), reorgEvery: 0 },
  });

interface IndexRow {
  name: string;
  definition: string;
}

/** Every index of the schema, by name. */
function indexesOf(store: Store): Promise<IndexRow[]> {
  return store.query<IndexRow>('test.indexes', sql`SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`);
}

/** The newest page of one pos sender's transactions, as the address feed asks it. */
const POS_SENDER_PAGE = `SELECT height, tx_index FROM transactions WHERE chain = 'pos' AND from_addr = (SELECT from_addr FROM transactions WHERE chain = 'pos' AND from_addr IS NOT NULL LIMIT 1) ORDER BY height DESC, tx_index DESC LIMIT 25`;

async function planOf(store: Store, query: string): Promise<string[]> {
  const rows = await store.query<{ 'QUERY PLAN': string }>('test.plan', raw(`EXPLAIN ${query}`));
  return rows.map((row) => row['QUERY PLAN']);
}

describeEachStore('the demo load in two stages', (getStore, kind) => {
  it('serves pos first, then pow; the store ends as the one-stage load leaves it', async () => {
    const reference = await openTestStore(kind);
    let expected: Record<string, string>;
    let expectedIndexes: IndexRow[];
    try {
      await loadSyntheticWorld(reference, world());
      expected = await storeDigest(reference);
      expectedIndexes = await indexesOf(reference);
    } finally {
      await reference.close();
    }

    const store = getStore();
    const loads = createChainLoads();
    const generated = world();
    const seen: string[] = [];
    // Asked while pow's rollups run (the store answers it between two of the load's statements).
    let duringPow: Promise<string[]> | undefined;
    await loadSyntheticWorldPosFirst(store, generated, {
      loads,
      onStep: (step) => {
        seen.push(step);
        if (step === 'pow rollups') duringPow = planOf(store, POS_SENDER_PAGE);
      },
      onPosLoaded: async () => {
        seen.push('served');
        // pos is in, pow has not begun: only pow is loading, and the store holds no pow block.
        assert.deepEqual([...loads.current().keys()], ['pow']);
        assert.equal(loads.current().get('pow')!.height, -1);
        assert.equal(loads.current().get('pow')!.toHeight, generated.heightAt('pow', LIVE_FROM));
        const [pow] = await store.query<{ n: number }>('test.pow_blocks', sql`SELECT count(*)::int AS n FROM blocks WHERE chain = 'pow'`);
        assert.equal(pow!.n, 0);
        const [indexes] = await store.query<{ n: number }>(
          'test.indexes',
          sql`SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'transactions' AND indexname NOT LIKE '%_pkey'`,
        );
        assert.ok(indexes!.n > 0, 'pos is served with its indexes built');
      },
    });
    assert.equal(loads.current().size, 0, 'nothing loading at the end');
    assert.deepEqual(seen.slice(0, seen.indexOf('served') + 1), ['pos', 'pos rollups', 'curated', 'days', 'indexes', 'analyze', 'labels', 'served'], JSON.stringify(seen));
    assert.deepEqual(seen.slice(seen.indexOf('served') + 1), ['pow', 'pow rollups', 'days', 'indexes', 'analyze', 'labels']);
    // pos's page of a sender's transactions read through the copy of the sender index over pos's rows.
    const plan = (await duringPow!).join('\n');
    assert.match(plan, /Index (Only )?Scan( Backward)? using transactions_from\w*__pos_only on transactions/, plan);
    assert.deepEqual(await storeDigest(store), expected);
    // The whole indexes, as the schema defines them, and no copy left.
    assert.deepEqual(await indexesOf(store), expectedIndexes!);
    assert.ok(expectedIndexes!.some((index) => index.name === 'transactions_from'));
  });
});
