/**
 * The plans of a rollup step's statements on a complete tier database: the last N blocks of a chain
 * are applied again inside a transaction that is rolled back, and each statement of the chosen
 * rollups whose label matches LABELS is first run under EXPLAIN (ANALYZE, BUFFERS, SUMMARY), REPEAT
 * times, each time rolled back to a savepoint (the first run reads the block's pages cold, the later
 * ones warm). The blocks are already in the database, so the figures are those of a block applied
 * on top of itself: the plans and their page reads are what they show, not the values.
 *
 *   npx tsx scripts/explain-step.ts postgres://…/bench_m_… pow 'timeline_activity|active_days' 'merge|apply' 1
 *   (REPEAT=N runs each, FULL=1 prints the plans, TIMING=on times each node, SETS='SET LOCAL …' first)
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../src/chain/chains.ts';
import { loadBlocks } from '../src/ingest/load-blocks.ts';
import { RollupDeltas } from '../src/rollups/index.ts';
import { writeDeltaTables } from '../src/rollups/engine/delta-tables.ts';
import { runOrder } from '../src/rollups/engine/order.ts';
import { SharedStep } from '../src/rollups/engine/step.ts';
import { ROLLUPS } from '../src/rollups/registry.ts';
import { createPostgresDriver } from '../src/store/postgres.ts';
import { createStore, type Db } from '../src/store/store.ts';

const [url, chainName = 'pow', rollups = '.', labels = '.', n = '1'] = process.argv.slice(2);
if (!url) throw new Error('usage: explain-step.ts POSTGRES_URL [chain] [rollups] [labels] [blocks]');
const chain = chainName as ChainId;
const repeat = Number(process.env.REPEAT ?? 1);
const store = createStore(createPostgresDriver(url, { poolSize: 1 }));
class RolledBack extends Error {}

try {
  const [tip] = await store.query<{ h: string }>('explain.tip', sql`SELECT max(height)::text AS h FROM blocks WHERE chain = ${chain}`);
  const to = Number(tip!.h);
  const from = to - Number(n) + 1;
  await store.transaction('explain.step', async (tx) => {
    if (process.env.SETS) await tx.exec('explain.sets', process.env.SETS);
    const [below] = await tx.query<{ ts: number }>('explain.previous', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${from - 1}`);
    const deltas = new RollupDeltas(chain, below ? Number(below.ts) : null);
    for (const block of await loadBlocks(tx, chain, from, to)) deltas.addBlock(block);
    await writeDeltaTables(tx, deltas, ROLLUPS);
    const explaining: Db = {
      kind: tx.kind,
      exec: (label, script) => tx.exec(label, script),
      copyRows: (label, table, columns, rows) => tx.copyRows(label, table, columns, rows),
      async query(label, statement, options) {
        if (!new RegExp(labels).test(label)) return tx.query(label, statement, options);
        for (let i = 1; i <= repeat; i++) {
          await tx.exec('explain.savepoint', 'SAVEPOINT explain');
          const explain = `EXPLAIN (ANALYZE, BUFFERS, SUMMARY, TIMING ${process.env.TIMING === 'on' ? 'on' : 'off'}) `;
          const plan = await tx.query<{ 'QUERY PLAN': string }>('explain', { ...statement, text: explain + statement.text } as typeof statement);
          const lines = plan.map((row) => row['QUERY PLAN']);
          console.log(`--- ${label} #${i}: ${lines.filter((line) => /Planning Time|Execution Time/.test(line)).join(', ')}`);
          if (process.env.FULL) console.log(lines.join('\n'));
          await tx.exec('explain.rollback', 'ROLLBACK TO SAVEPOINT explain');
        }
        return tx.query(label, statement, options);
      },
    };
    const step = new SharedStep(deltas, runOrder(ROLLUPS), new Set(), false, -1);
    for (const rollup of step.rollups.filter((r) => new RegExp(rollups).test(r.name))) {
      await rollup.before?.(step.dbFor(explaining, rollup), step.for(rollup));
      await rollup.apply(step.dbFor(explaining, rollup), step.for(rollup));
    }
    throw new RolledBack();
  });
} catch (error) {
  if (!(error instanceof RolledBack) && !(error instanceof Error && error.cause instanceof RolledBack)) throw error;
} finally {
  await store.close();
}
