/**
 * The rollups as ingest sees them: the engine's entry points (engine/run.ts) and the deltas they
 * take, bound to the registered rollups and charts (registry.ts). The engine itself is handed its
 * set and imports none of them.
 */
import type { ChainId } from '../chain/chains.ts';
import { RollupDeltas as SetDeltas, type DeltaScope } from './engine/deltas.ts';
import * as engine from './engine/run.ts';
import type { RollupSet } from './engine/set.ts';
import { REGISTERED } from './registry.ts';

/** A step's one pass over its blocks, feeding the registered rollups' reducers (engine/deltas.ts). */
export class RollupDeltas extends SetDeltas {
  constructor(chain: ChainId, previousTs: number | null, only?: DeltaScope) {
    super(REGISTERED, chain, previousTs, only);
  }
}

/** `run` with the registered set as its first argument. */
const registered = <A extends unknown[], R>(run: (set: RollupSet, ...args: A) => R) => (...args: A): R => run(REGISTERED, ...args);

export const applyRollups = registered(engine.applyRollups);
export const revertRollups = registered(engine.revertRollups);
export const closeDays = registered(engine.closeDays);
export const warmCharts = registered(engine.warmCharts);
export const firstOpenDay = registered(engine.firstOpenDay);
export const reopenDays = registered(engine.reopenDays);
export const clearRollups = registered(engine.clearRollups);
export const clearTouched = registered(engine.clearTouched);
export const afterRefresh = registered(engine.afterRefresh);
export { onRollupUpkeep, rollupTimings } from './engine/run.ts';
export type { RollupUpkeep, RollupUpkeepListener } from './engine/run.ts';
