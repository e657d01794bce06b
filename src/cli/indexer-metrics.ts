/**
 * An indexer's Prometheus metrics (docs/metrics-prometheus.md, "The indexer"): blocks applied and
 * reverted, the rollups' upkeep per applied block and its split by rollup, the store's statements
 * by label, and the process's figures, under the same conventions as the API's (api/metrics/). The
 * rollup engine reports each step through its hook (rollups/engine/run.ts, onRollupUpkeep); this
 * file is where the hook meets prom-client, so ingest and rollups know nothing of it.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { ChainId } from '../chain/chains.ts';
import { onRollupUpkeep, type RollupUpkeep } from '../rollups/index.ts';
import type { Store } from '../store/store.ts';
import { DURATION_BUCKETS, METRIC_PREFIX, newRegistry, observeStoreQueries } from '../api/metrics/registry.ts';

export interface IndexerMetrics {
  registry: Registry;
  /** Stops observing the engine and the store. */
  close(): void;
}

/**
 * The rollups' upkeep as metrics, from now until `close`. The counters of `chains` (the chain an
 * indexer writes) are shown at 0 from the start, so their rates are defined before the first block.
 */
export function createIndexerMetrics(store: Store, chains: readonly ChainId[] = []): IndexerMetrics {
  const registry = newRegistry();
  const stopStore = observeStoreQueries(registry, store);
  const applied = new Counter({
    name: `${METRIC_PREFIX}indexer_blocks_applied_total`,
    help: 'Blocks whose rollup deltas were applied (a batch rolled back and written again counts again).',
    labelNames: ['chain'],
    registers: [registry],
  });
  const reverted = new Counter({
    name: `${METRIC_PREFIX}indexer_blocks_reverted_total`,
    help: 'Blocks whose rollup deltas a reorg reverted.',
    labelNames: ['chain'],
    registers: [registry],
  });
  const upkeep = new Histogram({
    name: `${METRIC_PREFIX}indexer_rollup_upkeep_seconds`,
    help: "Rollup upkeep per applied block: a step's time in the rollups divided by its blocks, observed once per block.",
    labelNames: ['chain'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const byRollup = new Counter({
    name: `${METRIC_PREFIX}indexer_rollup_seconds_total`,
    help: 'Time spent in each rollup (and the engine\'s delta_tables) applying and reverting blocks.',
    labelNames: ['chain', 'rollup', 'kind'],
    registers: [registry],
  });

  for (const chain of chains) {
    applied.inc({ chain }, 0);
    reverted.inc({ chain }, 0);
  }

  const observe = (step: RollupUpkeep) => {
    if (step.partial || step.blocks === 0) return;
    const labels = { chain: step.chain };
    for (const [rollup, ms] of step.byRollup) byRollup.inc({ chain: step.chain, rollup, kind: step.kind }, ms / 1000);
    if (step.kind === 'revert') {
      reverted.inc(labels, step.blocks);
      return;
    }
    applied.inc(labels, step.blocks);
    const perBlock = step.ms / 1000 / step.blocks;
    for (let i = 0; i < step.blocks; i++) upkeep.observe(labels, perBlock);
  };
  const stopEngine = onRollupUpkeep(observe);
  return {
    registry,
    close: () => {
      stopEngine();
      stopStore();
    },
  };
}
