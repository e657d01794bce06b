/**
 * A tier's two databases on one store (the benchmark's PostgreSQL server or a PGlite directory
 * under bench/.work): `base` as built, `work` the copy the ingest part completes and the API part
 * serves (bench/README.md, "The tiers"). A base without its build record did not finish and is built again.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { createPgliteDriver } from '../src/store/pglite.ts';
import { createPostgresDriver } from '../src/store/postgres.ts';
import { createStore, type Store, type StoreKind } from '../src/store/store.ts';
import type { BenchServer } from './cluster.ts';
import { WORK_DIR } from './proc.ts';
import { tierKey, type Tier } from './tiers.ts';

export type Copy = 'base' | 'work';

export interface TierStore {
  kind: StoreKind;
  tier: Tier;
  key: string;
  /** Database name (PostgreSQL) or data directory (PGlite), for messages. */
  where(copy: Copy): string;
  /** Opens the store in this process. */
  open(copy: Copy): Promise<Store>;
  /** The environment a Quarry process needs to use this store (undefined: remove the variable). */
  env(copy: Copy): Record<string, string | undefined>;
  exists(copy: Copy): Promise<boolean>;
  /** Removes both copies and every other build of the tier (other options or schema), then creates an empty base. */
  reset(): Promise<void>;
  /** Replaces the work copy with a copy of the base. */
  copyBase(): Promise<void>;
  /**
   * With too little disk for two copies, the work copy is the base itself: the ingest part then
   * completes the base, once (a later ingest part needs a rebuild).
   */
  singleCopy: boolean;
  /** Bytes a copy takes (0 if it does not exist). */
  bytes(copy: Copy): Promise<number>;
  readRecord<T>(): T | null;
  writeRecord(record: unknown): void;
}

export function tierStore(kind: StoreKind, tier: Tier, server: BenchServer | null): TierStore {
  const key = tierKey(tier);
  const prefix = `${kind}-${tier.name}-`;
  const recordFile = path.join(WORK_DIR, `${prefix}${key}.json`);
  const removeOtherRecords = () => {
    if (!existsSync(WORK_DIR)) return;
    for (const file of readdirSync(WORK_DIR)) if (file.startsWith(prefix) && file.endsWith('.json')) rmSync(path.join(WORK_DIR, file));
  };
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
    const names: Record<Copy, string> = { base: `bench_${tier.name.toLowerCase()}_${key}_base`, work: `bench_${tier.name.toLowerCase()}_${key}` };
    const store: TierStore = {
      ...common,
      singleCopy: false,
      where: (copy) => `database ${name(copy)}`,
      open: async (copy) => createStore(createPostgresDriver(server.urlFor(name(copy)), { poolSize: 4, applicationName: 'quarry-bench' }), { slowQueryMs: Number.MAX_SAFE_INTEGER }),
      env: (copy) => ({ QUARRY_DATABASE_URL: server.urlFor(name(copy)) }),
      exists: (copy) => server.databaseExists(name(copy)),
      async bytes(copy) {
        const client = new pg.Client({ connectionString: server.urlFor('postgres') });
        await client.connect();
        try {
          const { rows } = await client.query<{ bytes: string }>('SELECT pg_database_size(datname) AS bytes FROM pg_database WHERE datname = $1', [name(copy)]);
          return Number(rows[0]?.bytes ?? 0);
        } finally {
          await client.end();
        }
      },
      async reset() {
        removeOtherRecords();
        for (const db of await server.listDatabases(`bench_${tier.name.toLowerCase()}_`)) await server.dropDatabase(db);
        await server.createDatabase(names.base);
      },
      async copyBase() {
        await server.dropDatabase(names.work);
        if (store.singleCopy) return;
        // FILE_COPY copies the files after a checkpoint; the default (WAL_LOG) would write the whole database to the WAL.
        const client = new pg.Client({ connectionString: server.urlFor('postgres') });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${names.work} TEMPLATE ${names.base} STRATEGY FILE_COPY`);
        } finally {
          await client.end();
        }
      },
    };
    const name = (copy: Copy) => (store.singleCopy ? names.base : names[copy]);
    return store;
  }

  const dirs: Record<Copy, string> = { base: path.join(WORK_DIR, `pglite-${tier.name}-${key}-base`), work: path.join(WORK_DIR, `pglite-${tier.name}-${key}`) };
  const dir = (copy: Copy) => (store.singleCopy ? dirs.base : dirs[copy]);
  const store: TierStore = {
    ...common,
    singleCopy: false,
    where: (copy) => path.relative(process.cwd(), dir(copy)),
    open: async (copy) => createStore(await createPgliteDriver(path.join(dir(copy), 'pglite')), { slowQueryMs: Number.MAX_SAFE_INTEGER }),
    env: (copy) => ({ QUARRY_DATA_DIR: dir(copy), QUARRY_DATABASE_URL: undefined }),
    exists: async (copy) => existsSync(path.join(dir(copy), 'pglite')),
    bytes: async (copy) => directoryBytes(dir(copy)),
    async reset() {
      removeOtherRecords();
      if (existsSync(WORK_DIR)) {
        for (const dir of readdirSync(WORK_DIR)) if (dir.startsWith(`pglite-${tier.name}-`)) rmSync(path.join(WORK_DIR, dir), { recursive: true, force: true });
      }
    },
    async copyBase() {
      rmSync(dirs.work, { recursive: true, force: true });
      if (store.singleCopy) return;
      cpSync(dirs.base, dirs.work, { recursive: true, filter: (source) => path.basename(source) !== 'quarry.lock' });
    },
  };
  return store;
}

export function directoryBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(full) : statSync(full).size;
  }
  return total;
}

/** Free bytes on the file system that holds `dir` (for the local cluster and PGlite). */
export function freeBytes(dir: string): number {
  mkdirSync(dir, { recursive: true });
  const stats = statfsSync(dir);
  return stats.bavail * stats.bsize;
}
