/**
 * What the analytics routes share: the `chain` parameter (default pos), the window as whole UTC
 * days ending with the tip's day, the chain's indexed span, and daily series zero-filled over the
 * days the window and the history share. Definitions: docs/metrics.md, "Analytics conventions".
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { addDays, eachDay, formatDay } from '../../time.ts';
import { parseWindow, type WindowOptions } from '../params/window.ts';
import { CHAINS } from '../../chain/chains.ts';
import { StringEnum, WindowQuery } from '../schemas/common.ts';

export const AnalyticsChain = Type.Optional(StringEnum(CHAINS, { default: 'pos', description: 'Chain: pow (legacy proof of work) or pos (QRL 2.0); default pos.' }));

/** Query of a daily series: the chain and a window whose default is the endpoint's. */
export function SeriesQuery(fallback: string) {
  return Type.Object({
    chain: AnalyticsChain,
    window: WindowQuery(fallback, 'Window: whole UTC days ending with the latest block’s day (a length rounds up to days)'),
  });
}

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

/** A window's days: `days` long, ending with the tip's day (`to`), clipped to the indexed history (`from`). */
export interface DayRange {
  from: string;
  to: string;
  days: number;
  /** The window reaches before the first indexed day. */
  clipped: boolean;
}

export function dayRange(span: ChainSpan, days: number): DayRange {
  const to = formatDay(span.tipTs);
  const start = addDays(to, 1 - days);
  const first = formatDay(span.firstTs);
  return { from: start < first ? first : start, to, days, clipped: start < first };
}

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

/** Every day from `from` to `to`, each from `rows` (keyed by day) or `zero(day)` when the day has none. */
export function zeroFill<T>(range: { from: string; to: string }, rows: Map<string, T>, zero: (day: string) => T): T[] {
  const out: T[] = [];
  for (const day of eachDay(range.from, range.to)) out.push(rows.get(day) ?? zero(day));
  return out;
}
