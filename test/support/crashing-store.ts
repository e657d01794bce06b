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
