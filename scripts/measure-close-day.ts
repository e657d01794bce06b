/**
 * Measures what closing one UTC day costs on a built database (the pause a followed chain takes at
 * midnight): every registered chart's `close` for the last closed day of each chain, run five times
 * inside a transaction that is rolled back, so the database is left as it was.
 *
 *   npx tsx scripts/measure-close-day.ts postgres://…/bench_m_…_base
 */
import sql from 'sql-template-tag';
import { createPostgresDriver } from '../src/store/postgres.ts';
import { createStore } from '../src/store/store.ts';
import { closeDays } from '../src/rollups/index.ts';
import { CHARTS } from '../src/rollups/registry.ts';
import { lastClosedDay } from '../src/time.ts';

const url = process.argv[2];
if (!url) throw new Error('usage: measure-close-day.ts POSTGRES_URL');
const store = createStore(createPostgresDriver(url, { poolSize: 1 }));
const ROLLBACK = new Error('rolled back on purpose');

try {
  for (const chain of ['pow', 'pos'] as const) {
    const [tip] = await store.query<{ ts: number }>('measure.tip', sql`SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1`);
    if (!tip) continue;
    const day = lastClosedDay(Number(tip.ts));
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      await store
        .transaction('measure.close_day', async (tx) => {
          const started = performance.now();
          await closeDays(tx, chain, day, day);
          runs.push(performance.now() - started);
          throw ROLLBACK;
        })
        .catch((error: unknown) => {
          if ((error as { cause?: unknown }).cause !== ROLLBACK && error !== ROLLBACK) throw error;
        });
    }
    runs.sort((a, b) => a - b);
    console.log(`${chain} ${day}: closing the day (${CHARTS.map((c) => c.name).join(', ')}) took ${runs.map((ms) => ms.toFixed(1)).join(', ')} ms (median ${runs[2]!.toFixed(1)} ms)`);
  }
} finally {
  await store.close();
}
