/**
 * The engine: applies and reverts a batch's deltas through every rollup of the set it is handed
 * (engine/set.ts; in the order their declared dependencies give: engine/order.ts), closes and
 * reopens the set's charts' days, and gives `quarry refresh` what it clears and rebuilds.
 */
import sql, { join, raw } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db, Store } from '../../store/store.ts';
import { formatDay } from '../../time.ts';
import type { RollupDeltas } from './deltas.ts';
import { freshRollups, writeDeltaTables } from './delta-tables.ts';
import type { ApiPart } from './rollup.ts';
import type { RollupSet } from './set.ts';
import { SharedStep } from './step.ts';

/** Time spent in one rollup or chart (or in the engine's own statements), in this process. */
export interface RollupTiming {
  part: ApiPart | 'engine';
  ms: number;
  calls: number;
}

const timings = new Map<string, RollupTiming>();

/** Time per rollup and chart since the process started, by name: what each part of the API costs to keep. */
export function rollupTimings(): ReadonlyMap<string, Readonly<RollupTiming>> {
  return timings;
}

/**
 * One application or reversal of a batch's deltas, as it ends: what the indexer's metrics observe
 * (the CLI wires them; cli/indexer-metrics.ts). `ms` is the wall time of the whole step; `byRollup`
 * splits it by rollup (and the engine's own `delta_tables`). The step ran inside the caller's
 * transaction: one that rolls back and is applied again is reported again.
 */
export interface RollupUpkeep {
  chain: ChainId;
  kind: 'apply' | 'revert';
  /** Blocks whose deltas the step applied or reverted. */
  blocks: number;
  /** A refresh of some addresses (apply only): not a chain's blocks being applied. */
  partial: boolean;
  ms: number;
  byRollup: ReadonlyMap<string, number>;
}

export type RollupUpkeepListener = (upkeep: RollupUpkeep) => void;

const upkeepListeners = new Set<RollupUpkeepListener>();

/**
 * Calls `listener` after every application and reversal of rollup deltas in this process; returns
 * the function that stops it. A listener must be quick and must not throw.
 */
export function onRollupUpkeep(listener: RollupUpkeepListener): () => void {
  const own: RollupUpkeepListener = (upkeep) => listener(upkeep);
  upkeepListeners.add(own);
  return () => void upkeepListeners.delete(own);
}

/** Reports a step to the listeners, when there are any (the step's own split is kept only then). */
function reportUpkeep(upkeep: Omit<RollupUpkeep, 'byRollup'>, byRollup: Map<string, number> | undefined): void {
  if (!byRollup) return;
  for (const listener of upkeepListeners) listener({ ...upkeep, byRollup });
}

/** A step's time per rollup, when some listener wants it. */
const stepSplit = (): Map<string, number> | undefined => (upkeepListeners.size > 0 ? new Map() : undefined);

async function timed<T>(name: string, part: RollupTiming['part'], run: () => Promise<T>, split?: Map<string, number>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    const ms = performance.now() - started;
    const timing = timings.get(name) ?? timings.set(name, { part, ms: 0, calls: 0 }).get(name)!;
    timing.ms += ms;
    timing.calls++;
    if (split) split.set(name, (split.get(name) ?? 0) + ms);
  }
}

type Phase = 'before' | 'apply' | 'revert' | 'repair';

/** Runs `phase` of every rollup that has it, in order, each with its view of the step and its Db. */
async function runPhase(db: Db, step: SharedStep, phase: Phase, split: Map<string, number> | undefined): Promise<void> {
  for (const rollup of step.rollups) {
    const run = rollup[phase];
    if (run) await timed(rollup.name, rollup.part, () => run.call(rollup, step.dbFor(db, rollup), step.for(rollup)), split);
  }
}

/**
 * Adds `deltas` (of blocks whose raw rows are written, built for `set`) to every rollup of `set`. A
 * `partial` delta (a refresh of some addresses) leaves out the chain-wide counters, which the
 * refresh recomputes. `filled`: the rollups a caller applying batch after batch has seen holding
 * rows (freshRollups).
 */
export async function applyRollups(set: RollupSet, db: Db, deltas: RollupDeltas, options: { partial?: boolean; filled?: Set<string> } = {}): Promise<void> {
  if (deltas.blocks === 0) return;
  const started = performance.now();
  const split = stepSplit();
  const rollups = set.ordered;
  const fresh = await timed('delta_tables', 'engine', async () => {
    const found = await freshRollups(db, deltas.chain, rollups, options.filled);
    await writeDeltaTables(db, deltas, rollups, found);
    return found;
  }, split);
  const step = new SharedStep(deltas, rollups, fresh, options.partial ?? false, -1);
  await runPhase(db, step, 'before', split);
  await runPhase(db, step, 'apply', split);
  reportUpkeep({ chain: deltas.chain, kind: 'apply', blocks: deltas.blocks, partial: options.partial ?? false, ms: performance.now() - started }, split);
}

/**
 * Removes `deltas` (of the newest blocks, down to just above `ancestor`): subtracts while their
 * raw rows exist, lets `deleteRaw` remove them, repairs what subtraction cannot restore, and
 * reopens the closed days from `firstTs` (the first reverted block's time) on.
 */
export async function revertRollups(set: RollupSet, db: Db, deltas: RollupDeltas, ancestor: number, firstTs: number, deleteRaw: () => Promise<void>): Promise<void> {
  const started = performance.now();
  const split = stepSplit();
  const rollups = set.ordered;
  await timed('delta_tables', 'engine', () => writeDeltaTables(db, deltas, rollups), split);
  const step = new SharedStep(deltas, rollups, new Set(), false, ancestor);
  await runPhase(db, step, 'before', split);
  await runPhase(db, step, 'revert', split);
  await deleteRaw();
  await runPhase(db, step, 'repair', split);
  await reopenDays(set, db, deltas.chain, formatDay(firstTs));
  reportUpkeep({ chain: deltas.chain, kind: 'revert', blocks: deltas.blocks, partial: false, ms: performance.now() - started }, split);
}

/** Computes (or recomputes) the closed days of every chart of `set` from `fromDay` to `toDay` inclusive. */
export async function closeDays(set: RollupSet, db: Db, chain: ChainId, fromDay: string, toDay: string): Promise<void> {
  if (fromDay > toDay) return;
  for (const chart of set.closedCharts) await timed(chart.name, chart.part, () => chart.close(db, chain, fromDay, toDay));
}

/**
 * Lets every chart load what it keeps in the process between closes (Chart.warm). Not in the
 * rollup timings: it is a run's start, not upkeep of blocks or a day's close.
 */
export async function warmCharts(set: RollupSet, store: Store, chain: ChainId): Promise<void> {
  for (const chart of set.closedCharts) await chart.warm?.(store, chain);
}

/**
 * The first day some chart has not closed: the day after its last closed one, or the chain's first
 * day. Closing resumes there, so days a reorg reopened close again whatever the blocks' times.
 */
export async function firstOpenDay(set: RollupSet, db: Db, chain: ChainId): Promise<string | null> {
  // One statement for every chart table: it runs before each followed block's day close check.
  const nextDays = set.chartTables.map((table) => sql`SELECT coalesce((SELECT max(day) + 1 FROM ${raw(table)} WHERE chain = ${chain}), (SELECT day FROM first)) AS day`);
  return timed('first_open_day', 'engine', async () => {
    const [row] = await db.query<{ day: string | null }>(
      'rollups.charts.first_open',
      sql`WITH first AS (SELECT DATE '1970-01-01' + (ts / 86400)::int AS day FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1)
          SELECT min(day)::text AS day FROM (${join(nextDays, ' UNION ALL ')}) AS days`,
    );
    return row?.day ?? null;
  });
}

/** Reopens the closed days from `fromDay` on (a reorg reached them): their chart rows go until they close again. */
export async function reopenDays(set: RollupSet, db: Db, chain: ChainId, fromDay: string): Promise<void> {
  for (const table of set.chartTables) {
    await db.query('rollups.charts.reopen', sql`DELETE FROM ${raw(table)} WHERE chain = ${chain} AND day >= ${fromDay}::date`);
  }
}

/** Every table a rollup or chart keeps for `chain`: what a whole refresh clears before its replay. */
export async function clearRollups(set: RollupSet, db: Db, chain: ChainId): Promise<void> {
  for (const table of [...set.rollups.flatMap((rollup) => rollup.tables), ...set.chartTables]) {
    await db.query('refresh.clear', sql`DELETE FROM ${raw(table)} WHERE chain = ${chain}`);
  }
  for (const rollup of set.ordered) await rollup.cleared?.(db, chain);
}

/** A refresh of a range: the rows its addresses and days own, and every chart day (all are closed again). */
export async function clearTouched(set: RollupSet, db: Db, chain: ChainId, touched: { addresses: string[]; days: string[] }): Promise<void> {
  for (const rollup of set.ordered) await rollup.clearTouched?.(db, chain, touched);
  await reopenDays(set, db, chain, '1970-01-01');
}

/** After a refresh's replay: what each rollup recomputes from the rows rebuilt underneath it. */
export async function afterRefresh(set: RollupSet, db: Db, chain: ChainId, partial: boolean): Promise<void> {
  for (const rollup of set.ordered) await rollup.afterRefresh?.(db, chain, partial);
}
