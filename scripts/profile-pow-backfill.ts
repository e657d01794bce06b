/**
 * Where `quarry index pow`'s first sync spends its time: the benchmark's fake QRL node (its own
 * process) serving a generated pow chain, its serve rate measured as the benchmark does, then the
 * chain indexed into a fresh database of the benchmark's PostgreSQL server, with the phases of the
 * run (the log, in seconds from the start), the CPU seconds of the node, of this process (the
 * indexer) and of the rest of the machine (PostgreSQL, on an otherwise idle machine), and the
 * store's time by query label.
 *   node --max-semi-space-size=64 --import tsx scripts/profile-pow-backfill.ts [days] [scale]
 *   (LOG=silent, TOP=N, PROF=FILE.cpuprofile: the indexer's CPU profile during the backfill)
 * The flag is the one bin/quarry.js and `npm run bench` run with.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { pino } from 'pino';
import { openBenchServer } from '../bench/cluster.ts';
import { startFakeNode } from '../bench/parts/pow-node.ts';
import { machineBusySeconds, processCpuSeconds } from '../bench/proc.ts';
import { resolveIndexPowSettings } from '../src/cli/commands/index-pow.ts';
import { indexPow } from '../src/ingest/index-pow.ts';
import { measurePowServeRate } from '../src/sources/qrl-grpc/serve-rate.ts';
import { migrate } from '../src/store/migrate.ts';
import { createPostgresDriver } from '../src/store/postgres.ts';
import { createStore } from '../src/store/store.ts';
import { printStoreStats } from './store-stats.ts';

const DATABASE = 'profile_pow_backfill';
const node = await startFakeNode({ days: Number(process.argv[2] ?? 2), scale: Number(process.argv[3] ?? 4000) });
const server = await openBenchServer();
try {
  const serve = await measurePowServeRate(node.address, { from: 0, to: node.height });
  console.log(`the node serves ${node.height + 1} blocks at ${Math.round(serve.blocksPerSecond)} blocks/s`);
  await server.dropDatabase(DATABASE);
  await server.createDatabase(DATABASE);
  const store = createStore(createPostgresDriver(server.urlFor(DATABASE), { poolSize: 4 }));
  try {
    await migrate(store);
    const profiler = process.env.PROF ? new Session() : null;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const cpu = { machine: machineBusySeconds(), node: processCpuSeconds(node.child.pid!), indexer: process.cpuUsage() };
    const started = performance.now();
    const seconds = () => ((performance.now() - started) / 1000).toFixed(2);
    const logger = pino({ level: process.env.LOG ?? 'info', timestamp: () => `,"s":${seconds()}` });
    const result = await indexPow(store, resolveIndexPowSettings({ node: node.address, progress: false }, {}), { logger });
    const wall = (performance.now() - started) / 1000;
    const indexerUsage = process.cpuUsage(cpu.indexer);
    const indexer = (indexerUsage.user + indexerUsage.system) / 1e6;
    const nodeCpu = processCpuSeconds(node.child.pid!) - cpu.node;
    const machine = machineBusySeconds() - cpu.machine;
    if (profiler) writeFileSync(process.env.PROF!, JSON.stringify((await profiler.post('Profiler.stop')).profile));
    // Per block of the node's chain, as the benchmark counts (result.blocks leaves out the orphans).
    const rate = (node.height + 1) / wall;
    console.log(`${result.transactions} transactions in ${wall.toFixed(2)} s: ${Math.round(rate)} blocks/s, ${(rate / serve.blocksPerSecond).toFixed(2)} of the serve rate`);
    console.log(`CPU s: node ${nodeCpu.toFixed(1)}, indexer ${indexer.toFixed(1)}, the rest (PostgreSQL) ${(machine - nodeCpu - indexer).toFixed(1)}`);
    printStoreStats(store, 30);
  } finally {
    await store.close();
  }
  await server.dropDatabase(DATABASE);
} finally {
  await server.stop();
  node.child.kill('SIGTERM');
}
