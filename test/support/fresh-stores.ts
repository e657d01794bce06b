/**
 * New test stores, built from nothing: a migrated PGlite in memory, or a new database on the
 * PostgreSQL server the test runner started (QUARRY_TEST_DATABASE_URL). Tests open theirs through
 * `openTestStore` (stores.ts), which copies a run's migrated snapshot instead.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPgliteDriver } from '../../src/store/pglite.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store, type StoreKind } from '../../src/store/store.ts';
import { migrate } from '../../src/store/migrate.ts';

export function storeKinds(): StoreKind[] {
  return process.env.QUARRY_TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

/**
 * The store kinds of a suite whose subject is not the store: the run's last kind, PostgreSQL when
 * the run has it. Such a suite (an API route on its seed, a node's protocol through an indexer) asks
 * the same SQL of either store. What PGlite must do as PostgreSQL does is held by the suites that run
 * on every kind: the store's contract (src/store), the ingest pipeline and every rollup against
 * from-scratch oracles through reorgs and crashes (src/ingest, test/ingest), the commands killed and
 * run again (test/indexer/*-kill), the store's own behaviour under the API (its deadlines, snapshots,
 * outages, event log), and test/api/store-parity.test.ts, which asks every route of the API on both
 * kinds over the same seeds and holds PGlite's answers equal to PostgreSQL's; the demo runs on PGlite
 * alone. QUARRY_TEST_STORES=each runs every suite on every kind.
 */
export function singleStoreKinds(): StoreKind[] {
  const kinds = storeKinds();
  return process.env.QUARRY_TEST_STORES === 'each' ? kinds : kinds.slice(-1);
}

/** A URL of a new database on the test server: empty, or a copy of `template`. */
export async function createTestDatabase(template?: string): Promise<string> {
  const adminUrl = process.env.QUARRY_TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('QUARRY_TEST_DATABASE_URL is not set');
  const name = `quarry_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await createDatabase(client, name, template);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates database `name` on the server `client` is connected to: empty, or a copy of `template`. */
export async function createDatabase(client: pg.Client, name: string, template?: string): Promise<void> {
  if (!template) {
    await client.query(`CREATE DATABASE ${name}`);
    return;
  }
  // A copy of the template's files (with a checkpoint before and after), not through the WAL
  // (PostgreSQL's default from 15 on), which writes the whole database once more and takes a few
  // times longer. A server before 15 knows no STRATEGY and always copies the files.
  await client.query(`CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`).catch(async (error: { code?: string }) => {
    if (error.code !== '42601') throw error;
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  });
}

/** Drops a database `createTestDatabase` made: a run's databases would otherwise fill the disk (thousands of them). */
export async function dropTestDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.QUARRY_TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** A store on a test database that drops the database when it closes. */
export function testDatabaseStore(url: string, poolSize = 4): Store & { url: string } {
  // Prepared statements where a statement asks for them, as the API process runs them.
  const store = createStore(createPostgresDriver(url, { poolSize, prepare: true }));
  return {
    ...store,
    url,
    close: async () => {
      await store.close();
      await dropTestDatabase(url);
    },
  };
}

/** A new store, migrated unless `migrate` is false. */
export async function freshStore(kind: StoreKind, options: { migrate?: boolean } = {}): Promise<Store & { url?: string }> {
  const store =
    kind === 'pglite'
      ? createStore(await createPgliteDriver(undefined))
      : testDatabaseStore(await createTestDatabase());
  if (options.migrate !== false) await migrate(store);
  return store;
}

