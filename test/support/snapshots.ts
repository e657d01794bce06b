/**
 * Seeds that many test files share (the analytics world, say), loaded once per test run and store
 * kind instead of once per file: the first file to need one loads it through the real pipeline and
 * saves the store (a PGlite data directory, a PostgreSQL template database); every other file
 * starts from a copy. When the run has a PostgreSQL server, the seed is loaded there only, and its
 * PGlite snapshot is the server's rows copied table by table (the pipeline on the embedded store is
 * tested by the files that ingest into it themselves). `npm test` (scripts/test.ts) names the run's snapshot folder in QUARRY_TEST_SNAPSHOTS;
 * without it a seed simply loads into a fresh store.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import sql from 'sql-template-tag';
import { migrate } from '../../src/store/migrate.ts';
import { createPgliteDriver, type PgliteDriver } from '../../src/store/pglite.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store, type StoreKind } from '../../src/store/store.ts';
import { createDatabase, createTestDatabase, dropTestDatabase, freshStore, testDatabaseStore } from './fresh-stores.ts';

/** A seed whose loaded store can be shared: `load` fills a store, `expect` computes what the tests compare with (never from the store). */
export interface SnapshotSeed<T> {
  (store: Store): Promise<T>;
  readonly snapshot: { key: string; load(store: Store): Promise<void>; expect(): Promise<T> };
}

export function snapshotSeed<T>(key: string, load: (store: Store) => Promise<void>, expect: () => Promise<T>): SnapshotSeed<T> {
  // The expectations are computed once per process (a file's suites on both stores share them).
  let expected: Promise<T> | undefined;
  const expectOnce = () => (expected ??= expect());
  const seed = async (store: Store) => {
    await load(store);
    return expectOnce();
  };
  return Object.assign(seed, { snapshot: { key, load, expect: expectOnce } });
}

export function isSnapshotSeed<T>(seed: (store: Store) => Promise<T>): seed is SnapshotSeed<T> {
  return 'snapshot' in seed;
}

/** The migrated empty store, itself a snapshot: every other seed's snapshot starts from a copy of it, as migrating takes seconds. */
export const migratedSeed = snapshotSeed('migrated', async () => {}, async () => undefined);

/** A fresh migrated store holding what `seed.snapshot.load` loads, copied from the run's snapshot when there is one. */
export async function openSeededStore(kind: StoreKind, seed: SnapshotSeed<unknown>): Promise<Store & { url?: string }> {
  const dir = process.env.QUARRY_TEST_SNAPSHOTS;
  if (!dir) {
    const store = await freshStore(kind);
    await seed.snapshot.load(store);
    return store;
  }
  if (kind === 'postgres') return testDatabaseStore(await createTestDatabase(await postgresSnapshot(dir, seed)));
  // The process that built the snapshot goes on with the store it built.
  const { dataDir, built } = await pgliteSnapshot(dir, seed);
  return built ?? createStore(await createPgliteDriver(undefined, { copyOf: dataDir }));
}

const snapshotId = (dir: string, seed: SnapshotSeed<unknown>) => createHash('sha256').update(`${dir}\0${seed.snapshot.key}`).digest('hex').slice(0, 16);
const isMigrated = (seed: SnapshotSeed<unknown>) => seed.snapshot.key === migratedSeed.snapshot.key;

/** The data directory of `seed`'s PGlite snapshot, built first if no process has; `built` is the builder's store. */
async function pgliteSnapshot(dir: string, seed: SnapshotSeed<unknown>): Promise<{ dataDir: string; built?: Store }> {
  const dataDir = path.join(dir, `${snapshotId(dir, seed)}.pgdata`);
  if (existsSync(dataDir)) return { dataDir };
  const built = await withFileLock(`${dataDir}.lock`, async () => {
    if (existsSync(dataDir)) return undefined;
    let base: string | undefined;
    if (!isMigrated(seed)) {
      const migrated = await pgliteSnapshot(dir, migratedSeed);
      await migrated.built?.close();
      base = migrated.dataDir;
    }
    const driver = await createPgliteDriver(undefined, base === undefined ? {} : { copyOf: base });
    const store = createStore(driver);
    await migrate(store);
    // A seed the run's PostgreSQL server holds too is copied from there, table by table: loading
    // it through the pipeline again, on the embedded store, costs several times the CPU.
    const copied = !isMigrated(seed) && process.env.QUARRY_TEST_DATABASE_URL !== undefined;
    if (copied) await copyFromPostgres(await createTestDatabase(await postgresSnapshot(dir, seed)), driver);
    else await seed.snapshot.load(store);
    // Unpacked once into a data directory, which each store copies into memory as it opens
    // (PGlite's own unpacking of the tarball into a new in-memory database is much slower). Rows
    // that COPY wrote into tables it emptied first leave nothing for VACUUM FULL to compact: the
    // copy is dumped as it is (its VACUUM ANALYZE has gathered the statistics and set the
    // visibility map, which a VACUUM FULL's rewrite would clear again).
    writeFileSync(`${dataDir}.tar`, Buffer.from(await (await driver.dumpDataDir({ compact: !copied })).arrayBuffer()));
    // The WAL segment the dump's last checkpoint is in; the others are spare segments (16 MB each
    // that every copy would repeat), which the server makes again when it needs them.
    const [{ current } = { current: '' }] = await store.query<{ current: string }>('test.snapshot_wal', sql`SELECT pg_walfile_name(pg_current_wal_lsn()) AS current`);
    rmSync(`${dataDir}.part`, { recursive: true, force: true }); // left by a builder that died
    mkdirSync(`${dataDir}.part`);
    execFileSync('tar', ['-xf', `${dataDir}.tar`, '-C', `${dataDir}.part`], { stdio: 'ignore' });
    rmSync(`${dataDir}.tar`);
    const wal = path.join(`${dataDir}.part`, 'pg_wal');
    if (/^[0-9A-F]{24}$/.test(current) && existsSync(path.join(wal, current))) {
      for (const segment of readdirSync(wal)) if (/^[0-9A-F]{24}$/.test(segment) && segment !== current) rmSync(path.join(wal, segment));
    }
    renameSync(`${dataDir}.part`, dataDir);
    return store;
  });
  return built ? { dataDir, built } : { dataDir };
}

/** Runs `fn` holding a lock file that other test processes wait on; a lock whose owner died is taken over. */
async function withFileLock<T>(lock: string, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      writeFileSync(lock, String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(lock, 'utf8') || '0');
      if (owner > 0 && !alive(owner)) rmSync(lock, { force: true });
      else await sleep(200);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The template database of `seed`'s PostgreSQL snapshot, built first if no process has. */
async function postgresSnapshot(dir: string, seed: SnapshotSeed<unknown>): Promise<string> {
  const template = `quarry_snapshot_${snapshotId(dir, seed)}`;
  const admin = new pg.Client({ connectionString: process.env.QUARRY_TEST_DATABASE_URL });
  await admin.connect();
  try {
    // One builder per template across the test processes; the others wait here, then copy it.
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [template]);
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (rowCount === 0) {
      // Loaded in place under the template's name, so no scratch database is left behind.
      await createDatabase(admin, template, isMigrated(seed) ? undefined : await postgresSnapshot(dir, migratedSeed));
      const url = new URL(process.env.QUARRY_TEST_DATABASE_URL ?? '');
      url.pathname = `/${template}`;
      const store = createStore(createPostgresDriver(url.toString(), { poolSize: 4, prepare: true }));
      try {
        await migrate(store);
        await seed.snapshot.load(store);
      } catch (error) {
        await store.close();
        await admin.query(`DROP DATABASE ${template} WITH (FORCE)`);
        throw error;
      }
      await store.close();
    }
    await admin.query('SELECT pg_advisory_unlock(hashtext($1))', [template]);
  } finally {
    await admin.end();
  }
  return template;
}

/**
 * Copies every row of the PostgreSQL database at `url` (a copy of a seed's template, dropped here)
 * into the migrated PGlite of `driver`: both hold the same migrations, so the same tables and
 * columns. The rows land as they are, triggers off (a count a trigger keeps is copied, not
 * counted twice), sequences where the server's stand, statistics gathered afterwards.
 */
async function copyFromPostgres(url: string, driver: PgliteDriver): Promise<void> {
  const source = new pg.Client({ connectionString: url });
  await source.connect();
  try {
    await source.query(`SET TIME ZONE 'UTC'`);
    const { rows: columns } = await source.query<{ table_name: string; columns: string }>(
      `SELECT c.table_name, string_agg(quote_ident(c.column_name), ', ' ORDER BY c.ordinal_position) AS columns
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.is_generated = 'NEVER'
        GROUP BY c.table_name ORDER BY c.table_name`,
    );
    const { rows: sequences } = await source.query<{ name: string; value: string | null }>(
      `SELECT quote_ident(sequencename) AS name, last_value::text AS value FROM pg_sequences WHERE schemaname = 'public'`,
    );
    await driver.withConnection(async (target) => {
      await target.exec('SET session_replication_role = replica');
      await target.exec(`TRUNCATE ${columns.map((c) => quote(c.table_name)).join(', ')}`);
      for (const { table_name: table, columns: list } of columns) {
        const tsv = await copyOut(source, `COPY (SELECT ${list} FROM ${quote(table)}) TO STDOUT`);
        if (tsv.length > 0) await target.copyFrom(`COPY ${quote(table)} (${list}) FROM STDIN`, tsv);
      }
      for (const { name, value } of sequences) if (value !== null) await target.exec(`SELECT setval('${name}', ${BigInt(value)})`);
      await target.exec('SET session_replication_role = DEFAULT');
      await target.exec('VACUUM ANALYZE');
    });
  } finally {
    await source.end();
    await dropTestDatabase(url);
  }
}

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

async function copyOut(client: pg.Client, statement: string): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of client.query(copyTo(statement))) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
