/** The rollups as ingest sees them: the engine's entry points (engine/run.ts) and the deltas they take. */
export { RollupDeltas } from './engine/deltas.ts';
export { afterRefresh, applyRollups, clearRollups, clearTouched, closeDays, firstOpenDay, onRollupUpkeep, reopenDays, revertRollups, rollupTimings, warmCharts } from './engine/run.ts';
export type { RollupUpkeep, RollupUpkeepListener } from './engine/run.ts';
