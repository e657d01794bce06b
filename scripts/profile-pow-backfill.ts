/**
 * Where `quarry index pow`'s first sync spends its time: the benchmark's fake QRL node (its own
 * process) serving a generated pow chain, indexed into a fresh database of the benchmark's
 * PostgreSQL server, with the phases of the run (the log, in seconds from the start) and the
 * store's time by query label.
 *   node --import tsx scripts/profile-pow-backfill.ts [days] [scale]     (LOG=silent, TOP=N)
 */
import { pino } from 'pino';
import { openBenchServer } from '../bench/cluster.ts';
import { startFakeNode } from '../bench/parts/pow-node.ts';
import { resolveIndexPowSettings } from '../src/cli/commands/index-pow.ts';
import { indexPow } from '../src/ingest/index-pow.ts';
import { migrate } from '../src/store/migrate.ts';
import { createPostgresDriver } from '../src/store/postgres.ts';
import { createStore } from '../src/store/store.ts';
import { printStoreStats } from './store-stats.ts';

const DATABASE = 'profile_pow_backfill';
const node = await startFakeNode({ days: Number(process.argv[2] ?? 2), scale: Number(process.argv[3] ?? 4000) });
const server = await openBenchServer();
try {
  await server.dropDatabase(DATABASE);
  await server.createDatabase(DATABASE);
  const store = createStore(createPostgresDriver(server.urlFor(DATABASE), { poolSize: 4 }));
  try {
    await migrate(store);
    const started = performance.now();
    const seconds = () => ((performance.now() - started) / 1000).toFixed(2);
    const logger = pino({ level: process.env.LOG ?? 'info', timestamp: () => `,"s":${seconds()}` });
    const result = await indexPow(store, resolveIndexPowSettings({ node: node.address, progress: false }, {}), { logger });
    console.log(`${result.blocks} blocks in ${seconds()} s`);
    printStoreStats(store, 30);
  } finally {
    await store.close();
  }
  await server.dropDatabase(DATABASE);
} finally {
  await server.stop();
  node.child.kill('SIGTERM');
}
