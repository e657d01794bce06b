/**
 * Test stores: a fresh migrated PGlite, and a fresh database on the PostgreSQL server the test
 * runner started (QUARRY_TEST_DATABASE_URL). `describeEachStore` runs a suite on each;
 * `describeOnOneStore` a suite whose subject is not the store, on one (`singleStoreKinds`).
 */
import { after, before, describe } from 'node:test';
import type { Store, StoreKind } from '../../src/store/store.ts';
import { freshStore, singleStoreKinds, storeKinds } from './fresh-stores.ts';
import { migratedSeed, openSeededStore } from './snapshots.ts';

export { createTestDatabase, dropTestDatabase, singleStoreKinds, storeKinds } from './fresh-stores.ts';

export async function openTestStore(kind: StoreKind, options: { migrate?: boolean } = {}): Promise<Store & { url?: string }> {
  return options.migrate === false ? freshStore(kind, { migrate: false }) : openSeededStore(kind, migratedSeed);
}

/** Runs `suite` once per available store (or per kind of `kinds`), each with its own fresh migrated store (or the one `open` gives). */
export function describeEachStore(
  title: string,
  suite: (getStore: () => Store, kind: StoreKind) => void,
  open: (kind: StoreKind) => Promise<Store> = openTestStore,
  kinds: StoreKind[] = storeKinds(),
): void {
  for (const kind of kinds) {
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

/** Runs `suite` on one store kind, PostgreSQL when the run has it: a suite whose subject is not the store (`singleStoreKinds`). */
export function describeOnOneStore(title: string, suite: (getStore: () => Store, kind: StoreKind) => void, open: (kind: StoreKind) => Promise<Store> = openTestStore): void {
  describeEachStore(title, suite, open, singleStoreKinds());
}
