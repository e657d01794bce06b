/**
 * The seeding every API suite repeats, once: for each store, a fresh store seeded by `seed` (a
 * fixture or generated chain), then the real app on it, closed after the suite.
 *
 * A shared seed (test/support/snapshots.ts) with the default app is opened once per test process
 * and store kind: every suite of the process on that seed asks the same app on the same store,
 * closed when the process's tests end. Such suites only read, or put back what they change; a
 * suite that needs an app or store of its own (one it leaves changed, starts listening, or whose
 * counters it reads) passes `own: true`, and one with app settings (`env`, `tuning`) gets its own.
 *
 * A suite runs on one store kind, PostgreSQL when the run has it (`singleStoreKinds`): what it
 * reads is the same rows on either, and test/api/store-parity.test.ts holds every route's answers on
 * PGlite equal to PostgreSQL's over the shared seeds. A suite whose subject is the store's own
 * behaviour (its deadline, its metrics, its role) passes `everyStore: true`.
 */
import { after, before } from 'node:test';
import type { ApiTuning } from '../../src/api/context.ts';
import type { Store, StoreKind } from '../../src/store/store.ts';
import { buildTestApp, type TestApp } from './app.ts';
import { isSnapshotSeed, migratedSeed, openSeededStore, type SnapshotSeed } from './snapshots.ts';
import { describeEachStore, openTestStore, singleStoreKinds, storeKinds } from './stores.ts';

export interface SeededApp<T> {
  /** The app on the seeded store. */
  t(): TestApp;
  /** What `seed` returned (the chains it loaded, say). */
  seeded(): T;
  store(): Store;
}

export interface SeededAppOptions {
  /** Environment of the app; the rate limit is lifted unless set here. */
  env?: Record<string, string>;
  tuning?: ApiTuning;
  /** A store and app of the suite's own even on a shared seed (see above). */
  own?: boolean;
  /** On every store kind of the run: the suite's subject depends on the store (see above). */
  everyStore?: boolean;
}

/** The migrated empty store as a seed: the suites on an empty store share it as others share a world. */
export const emptyStore: SnapshotSeed<undefined> = migratedSeed;

const DEFAULT_ENV = { QUARRY_RATE_LIMIT_MAX: '100000' };

/** The process's shared store and app of each shared seed and store kind. */
const sharedApps = new Map<string, Promise<{ store: Store; app: TestApp }>>();
// Registered as this module loads, at the top level: a hook of the process's root test, which runs
// after every file of the process (scripts/test.ts groups several files into one process).
after(async () => {
  const opened = [...sharedApps.values()];
  sharedApps.clear();
  for (const entry of opened) {
    const { store, app } = await entry;
    await app.close();
    await store.close();
  }
});

function sharedApp(kind: StoreKind, seed: SnapshotSeed<unknown>): Promise<{ store: Store; app: TestApp }> {
  const key = `${kind}\0${seed.snapshot.key}`;
  let entry = sharedApps.get(key);
  if (!entry) {
    entry = (async () => {
      const store = await openSeededStore(kind, seed);
      return { store, app: await buildTestApp(store, DEFAULT_ENV) };
    })();
    // A failed open is not kept: the next suite tries again (and fails with its own error).
    entry.catch(() => sharedApps.delete(key));
    sharedApps.set(key, entry);
  }
  return entry;
}

export function describeSeededApp<T>(
  title: string,
  seed: (store: Store) => Promise<T>,
  suite: (s: SeededApp<T>, kind: StoreKind) => void,
  options: SeededAppOptions = {},
): void {
  // A shared seed's store comes loaded from the run's snapshot; only its expectations are computed here.
  const snapshot = isSnapshotSeed(seed) ? seed : undefined;
  const share = snapshot && !options.own && options.env === undefined && options.tuning === undefined ? snapshot : undefined;
  // A shared store's `close` is the process's (above), not the suite's.
  const open = share
    ? async (kind: StoreKind) => ({ ...(await sharedApp(kind, share)).store, close: async () => {} })
    : snapshot
      ? (kind: StoreKind) => openSeededStore(kind, snapshot)
      : openTestStore;
  describeEachStore(title, (getStore, kind) => {
    let app: TestApp | undefined;
    let seeded: T | undefined;
    before(async () => {
      seeded = snapshot ? ((await snapshot.snapshot.expect()) as T) : await seed(getStore());
      app = share
        ? (await sharedApp(kind, share)).app
        : await buildTestApp(getStore(), { ...DEFAULT_ENV, ...options.env }, { tuning: options.tuning });
    });
    after(() => (share ? undefined : app?.close()));
    suite(
      {
        t: () => {
          if (!app) throw new Error('app not ready');
          return app;
        },
        seeded: () => seeded as T,
        store: getStore,
      },
      kind,
    );
  }, open, options.everyStore ? storeKinds() : singleStoreKinds());
}
