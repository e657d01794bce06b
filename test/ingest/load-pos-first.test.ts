/**
 * The demo's two-stage load (`loadSyntheticWorldPosFirst`: pos whole through a bulk load, then pow
 * into the serving store with its indexes in place) gives the very store the one-stage bulk load
 * gives (every table's digest, rollups included), and says while it runs which chain is loading.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import sql from 'sql-template-tag';
import { loadSyntheticWorld, loadSyntheticWorldPosFirst } from '../../src/ingest/load-synthetic.ts';
import { createChainLoads } from '../../src/ingest/loading.ts';
import { createSyntheticWorld } from '../../src/sources/synthetic/index.ts';
import { storeDigest } from '../fakes/qrl-node/world.ts';
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

describeEachStore('the demo load in two stages', (getStore, kind) => {
  it('serves pos first, then pow; the store ends as the one-stage load leaves it', async () => {
    const reference = await openTestStore(kind);
    let expected: Record<string, string>;
    try {
      await loadSyntheticWorld(reference, world());
      expected = await storeDigest(reference);
    } finally {
      await reference.close();
    }

    const store = getStore();
    const loads = createChainLoads();
    const generated = world();
    const seen: string[] = [];
    await loadSyntheticWorldPosFirst(store, generated, {
      loads,
      onStep: (step) => seen.push(step),
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
    assert.deepEqual(seen.slice(seen.indexOf('served') + 1), ['pow', 'pow rollups', 'days', 'analyze', 'labels']);
    assert.deepEqual(await storeDigest(store), expected);
  });
});
