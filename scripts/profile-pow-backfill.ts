/**
 * Where `quarry index pow`'s first sync spends its time: a fake QRL node (its own process) serving
 * a generated pow chain, indexed into a fresh database of the benchmark's PostgreSQL server, with
 * the store's time by query label and the phases of the run.
 *   node --import tsx scripts/profile-pow-backfill.ts [days] [scale]
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pino } from 'pino';
import { openBenchServer } from '../bench/cluster.ts';
import { resolveIndexPowSettings } from '../src/cli/commands/index-pow.ts';
import { indexPow } from '../src/ingest/index-pow.ts';
import { migrate } from '../src/store/migrate.ts';
import { createPostgresDriver } from '../src/store/postgres.ts';
import { createStore } from '../src/store/store.ts';

const days = Number(process.argv[2] ?? 2);
const scale = Number(process.argv[3] ?? 4000);
const root = path.resolve(import.meta.dirname, '..');
const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/fakes/qrl-node/main.ts'), JSON.stringify({ seed: 1, days, scale })], { stdio: ['ignore', 'pipe', 'inherit'] });
let address = '';
for await (const line of createInterface({ input: child.stdout! })) {
  const match = /^listening (\S+) (\d+)$/.exec(line);
  if (match) {
    address = match[1]!;
    break;
  }
}
const server = await openBenchServer();
try {
  await server.dropDatabase('profile_pow_backfill');
  await server.createDatabase('profile_pow_backfill');
  const store = createStore(createPostgresDriver(server.urlFor('profile_pow_backfill'), { poolSize: 4 }));
  await migrate(store);
  const started = performance.now();
  const logger = pino({ level: process.env.LOG ?? 'info', timestamp: () => `,"s":${((performance.now() - started) / 1000).toFixed(2)}` });
  const result = await indexPow(store, resolveIndexPowSettings({ node: address, progress: false }, {}), { logger });
  console.log(`${result.blocks} blocks in ${((performance.now() - started) / 1000).toFixed(2)} s`);
  const rows = [...store.stats()].sort((a, b) => b[1].totalMs - a[1].totalMs).slice(0, Number(process.env.TOP ?? 30));
  for (const [label, s] of rows) console.log(label.padEnd(50), String(Math.round(s.totalMs)).padStart(8), 'ms', String(s.count).padStart(7));
  await store.close();
  await server.dropDatabase('profile_pow_backfill');
} finally {
  await server.stop();
  child.kill('SIGTERM');
}
