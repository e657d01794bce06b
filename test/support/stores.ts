/**
 * Test stores: a fresh migrated PGlite in memory, and a fresh database on the PostgreSQL server
 * the test runner started (QUARRY_TEST_DATABASE_URL). `describeEachStore` runs a suite on each.
 */
import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { createPgliteDriver } from '../../src/store/pglite.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store, type StoreKind } from '../../src/store/store.ts';
import { migrate } from '../../src/store/migrate.ts';

export function storeKinds(): StoreKind[] {
  return process.env.QUARRY_TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

/** A URL of a new database on the test server: empty, or a copy of `template`. */
export async function createTestDatabase(template?: string): Promise<string> {
  const adminUrl = process.env.QUARRY_TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('QUARRY_TEST_DATABASE_URL is not set');
  const name = `quarry_test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function openTestStore(kind: StoreKind, options: { migrate?: boolean } = {}): Promise<Store & { url?: string }> {
  const store =
    kind === 'pglite'
      ? createStore(await createPgliteDriver(undefined))
      : await (async () => {
          const url = await createTestDatabase();
          // Prepared statements where a statement asks for them, as the API process runs them.
          return Object.assign(createStore(createPostgresDriver(url, { poolSize: 4, prepare: true })), { url });
        })();
  if (options.migrate !== false) await migrate(store);
  return store;
}

/** Runs `suite` once per available store, each with its own fresh migrated store (or the one `open` gives). */
export function describeEachStore(
  title: string,
  suite: (getStore: () => Store, kind: StoreKind) => void,
  open: (kind: StoreKind) => Promise<Store> = openTestStore,
): void {
  for (const kind of storeKinds()) {
    describe(`${title} [${kind}]`, () => {
      let store: Store | undefined;
      before(async () => {
        store = await open(kind);
      });
      after(async () => {
        await store?.close();
      });
      suite(() => {
        if (!store) throw new Error('store not ready');
        return store;
      }, kind);
    });
  }
}
