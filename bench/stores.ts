/**
 * A tier's database on one kind of store: a database of the benchmark's PostgreSQL server, or an
 * embedded PGlite directory under bench/.work. Each is kept with a record of its build (the
 * generator's figures and what the world contains) beside it; a database without a record is a
 * build that did not finish, and is built again.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPgliteDriver } from '../src/store/pglite.ts';
import { createPostgresDriver } from '../src/store/postgres.ts';
import { createStore, type Store, type StoreKind } from '../src/store/store.ts';
import type { BenchServer } from './cluster.ts';
import { WORK_DIR } from './proc.ts';
import { tierKey, type Tier } from './tiers.ts';

export interface TierStore {
  kind: StoreKind;
  tier: Tier;
  key: string;
  /** Database name (PostgreSQL) or data directory (PGlite), for messages. */
  where: string;
  /** Opens the store in this process. */
  open(): Promise<Store>;
  /** The environment a Quarry process needs to use this store. */
  env(): Record<string, string | undefined>;
  exists(): Promise<boolean>;
  /** Removes the database, and other builds of the same tier (older schema or options). */
  reset(): Promise<void>;
  readRecord<T>(): T | null;
  writeRecord(record: unknown): void;
}

export function tierStore(kind: StoreKind, tier: Tier, server: BenchServer | null): TierStore {
  const key = tierKey(tier);
  const name = `bench_${tier.name.toLowerCase()}_${key}`;
  const recordFile = path.join(WORK_DIR, `${kind}-${tier.name}-${key}.json`);
  const common = {
    kind,
    tier,
    key,
    readRecord<T>(): T | null {
      return existsSync(recordFile) ? (JSON.parse(readFileSync(recordFile, 'utf8')) as T) : null;
    },
    writeRecord(record: unknown) {
      mkdirSync(WORK_DIR, { recursive: true });
      writeFileSync(recordFile, JSON.stringify(record, null, 2) + '\n');
    },
  };
  if (kind === 'postgres') {
    if (!server) throw new Error('PostgreSQL tiers need a server');
    const url = server.urlFor(name);
    return {
      ...common,
      where: `database ${name}`,
      open: async () => createStore(createPostgresDriver(url, { poolSize: 4, applicationName: 'quarry-bench' }), { slowQueryMs: Number.MAX_SAFE_INTEGER }),
      env: () => ({ QUARRY_DATABASE_URL: url }),
      exists: () => server.databaseExists(name),
      async reset() {
        rmSync(recordFile, { force: true });
        for (const db of await server.listDatabases(`bench_${tier.name.toLowerCase()}_`)) await server.dropDatabase(db);
        await server.createDatabase(name);
      },
    };
  }
  const dataDir = path.join(WORK_DIR, `pglite-${tier.name}-${key}`);
  return {
    ...common,
    where: path.relative(process.cwd(), dataDir),
    open: async () => createStore(await createPgliteDriver(path.join(dataDir, 'pglite')), { slowQueryMs: Number.MAX_SAFE_INTEGER }),
    // Undefined removes the variable from a child's environment: the embedded store needs it unset.
    env: () => ({ QUARRY_DATA_DIR: dataDir, QUARRY_DATABASE_URL: undefined }),
    exists: async () => existsSync(path.join(dataDir, 'pglite')),
    async reset() {
      rmSync(recordFile, { force: true });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
