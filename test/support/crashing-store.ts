import sql from 'sql-template-tag';
import type { Store } from '../../src/store/store.ts';

/** Wraps a store so that it "crashes" (the transaction throws) at the n-th batch. */
export function crashingStore(store: Store, failAt: number): Store {
  let batches = 0;
  return {
    ...store,
    transaction: (label, fn) => {
      if (label === 'ingest.batch' && ++batches === failAt) {
        return store.transaction(label, async (tx) => {
          await fn(tx);
          throw new Error('simulated crash before commit');
        });
      }
      return store.transaction(label, fn);
    },
  };
}

/**
 * What a crash of the database server does besides losing the transactions in flight: crash
 * recovery empties every unlogged table (holder_state, migration 0079).
 */
export async function emptyUnloggedTables(store: Store): Promise<string[]> {
  const tables = await store.query<{ name: string }>(
    'test.unlogged',
    sql`SELECT relname AS name FROM pg_class WHERE relpersistence = 'u' AND relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY relname`,
  );
  for (const { name } of tables) await store.exec('test.empty_unlogged', `TRUNCATE "${name}"`);
  return tables.map((t) => t.name);
}
