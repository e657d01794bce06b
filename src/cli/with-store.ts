/** The store a one-shot writing command (labels, dead letters) works on: opened, migrated, closed after. */
import { loadConfig } from '../config/env.ts';
import { migrate } from '../store/migrate.ts';
import { openStore } from '../store/open.ts';
import type { Store } from '../store/store.ts';

export async function withMigratedStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore(loadConfig(), 'indexer');
  try {
    await migrate(store);
    return await fn(store);
  } finally {
    await store.close();
  }
}
