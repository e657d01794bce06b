/**
 * Loads a generated world and prints where the store's time went, by query label.
 *   node --import tsx scripts/profile-load.ts pglite|postgres [powDays] [posDays] [scale]
 * PGlite runs on a temporary data directory, as the demo does: its in-memory file system grows
 * files by copying and is several times slower on a large load.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createStore } from '../src/store/store.ts';
import { createPgliteDriver } from '../src/store/pglite.ts';
import { createPostgresDriver } from '../src/store/postgres.ts';
import { migrate } from '../src/store/migrate.ts';
import { loadSyntheticWorld } from '../src/ingest/load-synthetic.ts';
import { startLocalCluster } from '../src/store/local-cluster.ts';
import { printStoreStats } from './store-stats.ts';

const kind = process.argv[2] ?? 'pglite';
const powDays = Number(process.argv[3] ?? 20);
const posDays = Number(process.argv[4] ?? 5);
const scale = Number(process.argv[5] ?? 2000);
const cluster = kind === 'postgres' ? await startLocalCluster() : undefined;
const dataDir = cluster ? undefined : mkdtempSync(path.join(os.tmpdir(), 'quarry-profile-'));
const store = createStore(cluster ? createPostgresDriver(cluster.url) : await createPgliteDriver(dataDir));
await migrate(store);
// Processor seconds per statement label: what the process used since the previous statement ended
// (so a statement also carries the work in JS just before it); transactions are left out.
const cpuByLabel = new Map<string, number>();
let lastCpu = process.cpuUsage();
// Milliseconds inside the store's statements per step: on PGlite its own work (its WebAssembly, its
// JavaScript and its file system calls), on PostgreSQL the round trips.
let stepStoreMs = 0;
store.observe((label, ms) => {
  if (label.endsWith('(transaction)')) return;
  stepStoreMs += ms;
  const used = process.cpuUsage(lastCpu);
  lastCpu = process.cpuUsage();
  cpuByLabel.set(label, (cpuByLabel.get(label) ?? 0) + (used.user + used.system) / 1e6);
});
// Processor seconds per step of the load (this process, all its threads).
const steps: { name: string; cpu: number; wall: number; inStore: number }[] = [];
let stepWall = performance.now();
let stepStart = process.cpuUsage();
let stepName: string | undefined;
const endStep = () => {
  const used = process.cpuUsage(stepStart);
  if (stepName) steps.push({ name: stepName, cpu: (used.user + used.system) / 1e6, wall: (performance.now() - stepWall) / 1000, inStore: stepStoreMs / 1000 });
  stepStart = process.cpuUsage();
  stepWall = performance.now();
  stepStoreMs = 0;
};
const report = await loadSyntheticWorld(
  store,
  { seed: 1, powDays, posDays, scale, end: new Date('2026-11-01T00:00:00Z') },
  { onStep: (step) => { endStep(); stepName = step; } },
);
endStep();
for (const { name, cpu, wall, inStore } of steps) console.log('cpu', name.padEnd(14), cpu.toFixed(1), 'wall', wall.toFixed(1), 'in store', inStore.toFixed(1));
console.log('cpu', 'all'.padEnd(14), steps.reduce((n, step) => n + step.cpu, 0).toFixed(1));
console.log(JSON.stringify(report.seconds), report.chains.pow.transactions + report.chains.pos.transactions, 'txs');
printStoreStats(store, 25);
for (const [label, cpu] of [...cpuByLabel].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 25))) {
  console.log('cpu', label.padEnd(50), cpu.toFixed(2));
}
await store.close();
await cluster?.stop();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
