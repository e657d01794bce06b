/**
 * Every registered rollup and chart, whatever it is: after random batches, reorgs and a crash with
 * resume (the database server's too: unlogged tables emptied), its rows equal those of a
 * from-scratch rebuild of the same raw rows (`quarry refresh`).
 * A rollup or chart added to the registry is covered here without a line of this file changing.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import sql, { raw } from 'sql-template-tag';
import { ingest } from '../../src/ingest/pipeline.ts';
import { refreshRollups } from '../../src/ingest/refresh.ts';
import { isClosed } from '../../src/rollups/engine/rollup.ts';
import { CHARTS, CLOSED_CHARTS, ROLLUPS } from '../../src/rollups/registry.ts';
import type { ChainId } from '../../src/chain/chains.ts';
import type { Store } from '../../src/store/store.ts';
import { randomChain } from '../support/random-chain.ts';
import { crashingStore, emptyUnloggedTables } from '../support/crashing-store.ts';
import { describeEachStore, openTestStore } from '../support/stores.ts';

const TABLES = [...new Set([...ROLLUPS.flatMap((rollup) => rollup.tables), ...CLOSED_CHARTS.map((chart) => chart.table)])];

/** Every row of every rollup table of `chain`, as sorted JSON lines per table. */
async function snapshot(store: Store, chain: ChainId): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const table of TABLES) {
    const rows = await store.query<Record<string, unknown>>('test.snapshot', sql`SELECT * FROM ${raw(table)} WHERE chain = ${chain}`);
    tables[table] = rows.map((row) => JSON.stringify(row, (_, v) => (typeof v === 'bigint' ? v.toString() : v))).sort();
  }
  return tables;
}

describeEachStore('every registered rollup and chart', (_getStore, kind) => {
  it('covers a rollup table for each rollup and a table for each chart that closes days', () => {
    for (const rollup of ROLLUPS) assert.ok(rollup.tables.length > 0, rollup.name);
    assert.ok(CLOSED_CHARTS.length > 0);
  });

  it('reads each kept chart from a registered rollup or the staking sync', () => {
    const keepers = new Set([...ROLLUPS.map((rollup) => rollup.name), 'staking-sync']);
    for (const chart of CHARTS) if (!isClosed(chart)) assert.ok(keepers.has(chart.keptBy), `${chart.name} reads ${chart.keptBy}`);
  });

  for (const chain of ['pos', 'pow'] as const) {
    it(`${chain}: incremental upkeep through random batches, reorgs and a crash equals a rebuild from the raw rows`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 1_000_000 }),
          fc.integer({ min: 1, max: 12 }),
          fc.integer({ min: 1, max: 12 }),
          fc.integer({ min: 2, max: 5 }),
          async (seed, batchBlocks, resumeBlocks, failAt) => {
            const store = await openTestStore(kind);
            try {
              // Blocks 6 hours apart: the chain spans about two weeks, so days close and reorgs reopen them.
              const c = randomChain(chain, seed, 60, 6 * 3600);
              await assert.rejects(ingest(crashingStore(store, failAt), c.source(), { batchBlocks }), /simulated crash/);
              assert.deepEqual(await emptyUnloggedTables(store), ['holder_state']);
              await ingest(store, c.source(), { batchBlocks: resumeBlocks });
              const incremental = await snapshot(store, chain);
              await refreshRollups(store, chain);
              const rebuilt = await snapshot(store, chain);
              for (const table of TABLES) assert.deepEqual(incremental[table], rebuilt[table], `${table} (seed ${seed})`);
              assert.ok(rebuilt.chain_day_metrics!.length > 3, 'several closed days');
            } finally {
              await store.close();
            }
          },
        ),
        { numRuns: kind === 'pglite' ? 3 : 6 },
      );
    });
  }
});
