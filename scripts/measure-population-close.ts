/**
 * Measures closing one UTC day of the holder-population chart (src/rollups/charts/supply/distribution.ts)
 * on a built database, the two ways it happens: cold (a process that has not closed a day yet reads
 * the state's balances back; here after taking the state back two days) and warm (the indexer closing
 * the next day with the balances of its previous close in memory: the day's moves only). Each close
 * commits, as the indexer's do: a warm close inside the cold close's transaction would find every row
 * that close wrote as two versions, and cost more than it does when following. The database ends as it
 * began: the state at the end of the last closed day, that day's and the day before's figures written
 * again with the same values.
 *
 *   npx tsx scripts/measure-population-close.ts postgres://…/bench_m_…_base
 */
import sql from 'sql-template-tag';
import { createPostgresDriver } from '../src/store/postgres.ts';
import { createStore } from '../src/store/store.ts';
import { supplyDistribution } from '../src/rollups/charts/supply/distribution.ts';
import { addDays, lastClosedDay } from '../src/time.ts';

const url = process.argv[2];
if (!url) throw new Error('usage: measure-population-close.ts POSTGRES_URL');
const store = createStore(createPostgresDriver(url, { poolSize: 1 }));

try {
  for (const chain of ['pow', 'pos'] as const) {
    const [tip] = await store.query<{ ts: number }>('measure.tip', sql`SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1`);
    if (!tip) continue;
    const day = lastClosedDay(Number(tip.ts));
    let started = performance.now();
    await store.transaction('measure.population_close', (tx) => supplyDistribution.close(tx, chain, addDays(day, -1), addDays(day, -1)));
    const cold = performance.now() - started;
    const before = new Map([...store.stats()].map(([label, s]) => [label, s.totalMs]));
    started = performance.now();
    await store.transaction('measure.population_close', (tx) => supplyDistribution.close(tx, chain, day, day));
    const warm = performance.now() - started;
    console.log(`${chain} ${day}: cold close (state taken back, balances read) ${cold.toFixed(1)} ms; warm close of the next day ${warm.toFixed(1)} ms`);
    const statements = [...store.stats()]
      .map(([label, s]) => ({ label, ms: s.totalMs - (before.get(label) ?? 0) }))
      .filter((s) => s.ms >= 1 && !s.label.endsWith('(transaction)'))
      .sort((a, b) => b.ms - a.ms);
    console.log(`  warm close by statement: ${statements.map((s) => `${s.label.replace('rollups.charts.population.', '')} ${s.ms.toFixed(0)}`).join(', ')} ms`);
  }
} finally {
  await store.close();
}
