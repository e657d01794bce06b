/**
 * The seeding every API suite repeats, once: for each store, a fresh store seeded by `seed` (a
 * fixture or generated chain), then the real app on it, closed after the suite.
 */
import { after, before } from 'node:test';
import type { ApiTuning } from '../../src/api/context.ts';
import type { Store, StoreKind } from '../../src/store/store.ts';
import { buildTestApp, type TestApp } from './app.ts';
import { isSnapshotSeed, openSeededStore } from './snapshots.ts';
import { describeEachStore, openTestStore } from './stores.ts';

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
}

export function describeSeededApp<T>(
  title: string,
  seed: (store: Store) => Promise<T>,
  suite: (s: SeededApp<T>, kind: StoreKind) => void,
  options: SeededAppOptions = {},
): void {
  // A shared seed's store comes loaded from the run's snapshot; only its expectations are computed here.
  const shared = isSnapshotSeed(seed) ? seed : undefined;
  const open = shared ? (kind: StoreKind) => openSeededStore(kind, shared) : openTestStore;
  describeEachStore(title, (getStore, kind) => {
    let app: TestApp | undefined;
    let seeded: T | undefined;
    before(async () => {
      seeded = shared ? await shared.snapshot.expect() : await seed(getStore());
      app = await buildTestApp(getStore(), { QUARRY_RATE_LIMIT_MAX: '100000', ...options.env }, { tuning: options.tuning });
    });
    after(() => app?.close());
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
  }, open);
}
