/**
 * Closed days and the open day of a chart, defined once for the engine and the API. A day closes
 * once a block of a later day is indexed (`lastClosedDay` of the tip, src/time.ts): the engine
 * then writes every chart's row of it, in order, in the same transaction. So a chart's closed days
 * are the days its table has a row for, and every day after its latest row is open: the tip's own
 * day, and any day a bulk load has not closed yet. A read of a day range (Chart.read) takes the
 * closed days from the chart's table and computes the open ones live, from the rollup rows the
 * close reads.
 */
import type { Sql } from 'sql-template-tag';
import type { Db } from '../../store/store.ts';
import { addDays } from '../../time.ts';

/** The items of a series with one item per day of its window. */
export const ONE_ITEM_PER_DAY = 'One item per UTC day, oldest first, from the later of the window start and the first indexed day to the latest block’s day';

/** A range of UTC days, `YYYY-MM-DD`, inclusive. */
export interface Days {
  from: string;
  to: string;
}

/** The open days of `range`: those after `lastClosed`, the chart's latest closed day (null: none closed yet). */
export function openDays(range: Days, lastClosed: string | null): Days | null {
  const from = lastClosed !== null && lastClosed >= range.from ? addDays(lastClosed, 1) : range.from;
  return from <= range.to ? { from, to: range.to } : null;
}

/** How a chart's rows of some days are read: the closed ones from its table, the open ones computed. */
export interface DayReads {
  /** A label prefix for the two statements. */
  label: string;
  /** Rows (with `day` as text) of the chart's table in the range: a primary-key range. */
  closed(range: Days): Sql;
  /** The same rows computed from the rollups for days that are not closed. */
  open(range: Days): Sql;
}

/**
 * The rows of every day of `range` that has any, oldest first and keyed by day: closed days from
 * the chart's table, the days after its latest row computed live. The closed read keeps its plan
 * (a primary-key range plans the same whatever the days); the open read's plan depends on how many
 * days it computes, so it is planned each time.
 */
export async function readDays<Row extends { day: string }>(db: Db, range: Days, reads: DayReads): Promise<Map<string, Row>> {
  const closed = await db.query<Row>(`${reads.label}.closed`, reads.closed(range), { reusePlan: true });
  const byDay = new Map(closed.map((r) => [r.day, r]));
  const open = openDays(range, closed.at(-1)?.day ?? null);
  if (open) for (const r of await db.query<Row>(`${reads.label}.open`, reads.open(open))) byDay.set(r.day, r);
  return byDay;
}

/** A day's counts by a key (a transaction type, a gas bucket). */
export interface DayCounts {
  day: string;
  counts: Map<string, number>;
}

export const noCounts = (day: string): DayCounts => ({ day, counts: new Map() });

/**
 * Rows (day, key, n) of a per-day breakdown a rollup keeps current with every block, as each day's
 * counts by key: a primary-key range, its plan kept.
 */
export async function dayCounts(db: Db, label: string, statement: Sql): Promise<Map<string, DayCounts>> {
  const byDay = new Map<string, DayCounts>();
  for (const r of await db.query<{ day: string; key: string | number; n: number }>(label, statement, { reusePlan: true })) {
    if (!byDay.has(r.day)) byDay.set(r.day, noCounts(r.day));
    byDay.get(r.day)!.counts.set(String(r.key), Number(r.n));
  }
  return byDay;
}
