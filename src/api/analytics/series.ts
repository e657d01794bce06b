/**
 * What the analytics routes share: the `chain` parameter (default pos), the window as whole UTC
 * days ending with the tip's day, the chain's indexed span, and daily series zero-filled over the
 * days the window and the history share. Definitions: docs/metrics.md, "Analytics conventions".
 */
import sql, { type Sql } from 'sql-template-tag';
import { Type } from 'typebox';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { addDays, eachDay, formatDay } from '../../time.ts';
import { parseWindow, type WindowOptions } from '../params/window.ts';
import { CHAINS } from '../../chain/chains.ts';
import { StringEnum } from '../schemas/common.ts';

export const AnalyticsChain = Type.Optional(StringEnum(CHAINS, { default: 'pos', description: 'Chain: pow (legacy proof of work) or pos (QRL 2.0); default pos.' }));

/** The first and the latest indexed block of a chain (Unix seconds), or null before any block. */
export interface ChainSpan {
  firstTs: number;
  tipTs: number;
}

export async function chainSpan(db: Db, chain: ChainId): Promise<ChainSpan | null> {
  const [row] = await db.query<{ first_ts: number | null; tip_ts: number | null }>(
    'analytics.span',
    sql`SELECT (SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1) AS first_ts,
               (SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1) AS tip_ts`,
    { reusePlan: true }, // two key lookups
  );
  return row?.first_ts == null || row.tip_ts == null ? null : { firstTs: Number(row.first_ts), tipTs: Number(row.tip_ts) };
}

/** The first and the latest day a series has: the chain's blocks' (spanDays), or the staking days'. */
export interface DaySpan {
  first: string;
  last: string;
}

export const spanDays = (span: ChainSpan): DaySpan => ({ first: formatDay(span.firstTs), last: formatDay(span.tipTs) });

/** A window's days: `days` long, ending with the span's latest day (`to`), clipped to its first (`from`). */
export interface DayRange {
  from: string;
  to: string;
  days: number;
  /** The window reaches before the first day. */
  clipped: boolean;
}

export function windowRange(span: DaySpan, days: number): DayRange {
  const start = addDays(span.last, 1 - days);
  return { from: start < span.first ? span.first : start, to: span.last, days, clipped: start < span.first };
}

/** The window of `days` days ending with the tip's day, clipped to the indexed history. */
export const dayRange = (span: ChainSpan, days: number): DayRange => windowRange(spanDays(span), days);

/** The window parameter as a day count (`m`/`h` lengths round up to whole days). */
export function windowDaysOf(raw: string | undefined, options: WindowOptions): number {
  return parseWindow(raw, options).days!;
}

/** A series request's window: its day count and, once the chain has a block, the days it covers. */
export async function seriesWindow(db: Db, chain: ChainId, rawWindow: string | undefined, fallback: string): Promise<{ days: number; range: DayRange | null }> {
  const days = windowDaysOf(rawWindow, { fallback });
  const span = await chainSpan(db, chain);
  return { days, range: span ? dayRange(span, days) : null };
}

/** What a day without a row answers: a zero row, the row of the day before, or no item. */
export type MissingDay<Row> = { zero: (day: string) => Row } | 'carry' | 'omit';

/** Every day from `from` to `to` in order, each from `rows` (keyed by day) or as `missing` says. */
export function fillDays<Row>(range: { from: string; to: string }, rows: Map<string, Row>, missing: MissingDay<Row>): Row[] {
  const out: Row[] = [];
  let last: Row | undefined;
  for (const day of eachDay(range.from, range.to)) {
    const row = rows.get(day);
    if (row !== undefined) out.push((last = row));
    else if (missing === 'carry') {
      if (last !== undefined) out.push(last);
    } else if (missing !== 'omit') out.push(missing.zero(day));
  }
  return out;
}

/** Every day from `from` to `to`, each from `rows` (keyed by day) or `zero(day)` when the day has none. */
export const zeroFill = <T>(range: { from: string; to: string }, rows: Map<string, T>, zero: (day: string) => T): T[] => fillDays(range, rows, { zero });

/**
 * Rows of a per-day table over a day range, read by its primary key (chain, day). Such a read
 * plans the same whatever the days, so its plan is kept (QueryOptions.reusePlan).
 */
export function dayRows<R>(db: Db, label: string, statement: Sql): Promise<R[]> {
  return db.query<R>(label, statement, { reusePlan: true });
}
