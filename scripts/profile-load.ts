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
const report = await loadSyntheticWorld(store, { seed: 1, powDays, posDays, scale, end: new Date('2026-11-01T00:00:00Z') });
console.log(JSON.stringify(report.seconds), report.chains.pow.transactions + report.chains.pos.transactions, 'txs');
printStoreStats(store, 25);
await store.close();
await cluster?.stop();
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
