/**
 * The rollups and charts an engine keeps, handed to each of its entry points (engine/run.ts,
 * engine/deltas.ts): the engine imports none of them. registry.ts builds the set of them all.
 */
import { runOrder } from './order.ts';
import type { DeltaReducer } from './reducer.ts';
import { isClosed, type AnyRollup, type Chart, type ClosedChart } from './rollup.ts';

export interface RollupSet {
  /** The rollups as listed: their reducers' order in the step's pass. */
  readonly rollups: readonly AnyRollup[];
  /** The rollups in the order a step runs them (engine/order.ts). */
  readonly ordered: readonly AnyRollup[];
  /** The charts, in the order they close. */
  readonly charts: readonly Chart[];
  /** The charts whose days close into a table of their own (the others read a rollup's per-day rows). */
  readonly closedCharts: readonly ClosedChart[];
  /** The closed charts' tables, each once. */
  readonly chartTables: readonly string[];
  /** The reducers of the rollups that declare one, as listed. */
  readonly reducers: readonly DeltaReducer<unknown>[];
}

/** The set of `rollups` and `charts`; throws as runOrder does on dependencies it cannot keep. */
export function rollupSet(rollups: readonly AnyRollup[], charts: readonly Chart[]): RollupSet {
  const closedCharts = charts.filter(isClosed);
  return {
    rollups,
    ordered: runOrder(rollups),
    charts,
    closedCharts,
    chartTables: [...new Set(closedCharts.map((chart) => chart.table))],
    reducers: rollups.flatMap((rollup) => (rollup.deltas ? [rollup.deltas as DeltaReducer<unknown>] : [])),
  };
}
