/**
 * What the staking routes share (docs/metrics.md, "Staking"): the window as whole UTC days ending with
 * the latest staking day (the beacon sync's, not the blocks'), clipped to the first one, and the
 * window's staking_daily rows. pow has no validators: its range is always null.
 */
import sql from 'sql-template-tag';
import { Type } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { addDays, eachDay } from '../../../time.ts';
import { WindowQuery } from '../../schemas/common.ts';
import { AnalyticsChain, windowDaysOf } from '../series.ts';

export const STAKING_WINDOW = '365d';

export const StakingQuery = Type.Object({
  chain: AnalyticsChain,
  window: WindowQuery(STAKING_WINDOW, 'Window: whole UTC days ending with the latest staking day (a length rounds up to days)'),
});

export const StakingEnvelope = {
  count: Type.Integer(),
  network: Type.String(),
  window_days: Type.Integer({ description: 'The window in days, as asked.' }),
};

export const STAKING_ITEMS_DESCRIPTION =
  'One item per UTC day, oldest first, from the later of the window start and the first staking day to the latest staking day; empty on pow (no validators).';

export interface StakingDay {
  day: string;
  active_validators: number;
  total_staked: bigint;
  rewards: bigint;
  rewarded_validators: number;
  slashings: number;
  nakamoto_33: number;
}

/** The window's day count and, once the chain has staking days, the days it covers. */
export async function stakingWindow(db: Db, chain: ChainId, rawWindow: string | undefined): Promise<{ days: number; range: { from: string; to: string } | null }> {
  const days = windowDaysOf(rawWindow, { fallback: STAKING_WINDOW });
  if (chain === 'pow') return { days, range: null };
  const [span] = await db.query<{ first: string | null; last: string | null }>(
    'analytics.staking.span',
    sql`SELECT (SELECT day::text FROM staking_daily WHERE chain = ${chain} ORDER BY day LIMIT 1) AS first,
               (SELECT day::text FROM staking_daily WHERE chain = ${chain} ORDER BY day DESC LIMIT 1) AS last`,
    { reusePlan: true }, // two key lookups
  );
  if (!span?.first || !span.last) return { days, range: null };
  const start = addDays(span.last, 1 - days);
  return { days, range: { from: start < span.first ? span.first : start, to: span.last } };
}

/** The staking_daily rows of the range, keyed by day. */
export async function stakingDays(db: Db, chain: ChainId, range: { from: string; to: string }): Promise<Map<string, StakingDay>> {
  const rows = await db.query<{ day: string; active_validators: number; total_staked: string; rewards: string; rewarded_validators: number; slashings: number; nakamoto_33: number | null }>(
    'analytics.staking.days',
    sql`SELECT day::text AS day, active_validators, total_staked::text AS total_staked, rewards::text AS rewards, rewarded_validators, slashings, nakamoto_33
        FROM staking_daily WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date ORDER BY day`,
    { reusePlan: true }, // a primary-key range
  );
  return new Map(
    rows.map((r) => [
      r.day,
      {
        day: r.day,
        active_validators: Number(r.active_validators),
        total_staked: BigInt(r.total_staked),
        rewards: BigInt(r.rewards),
        rewarded_validators: Number(r.rewarded_validators),
        slashings: Number(r.slashings),
        nakamoto_33: Number(r.nakamoto_33 ?? 0),
      },
    ]),
  );
}

/** The days of the range that have a row, oldest first. */
export function presentDays<T>(range: { from: string; to: string }, rows: Map<string, T>): T[] {
  const out: T[] = [];
  for (const day of eachDay(range.from, range.to)) {
    const row = rows.get(day);
    if (row) out.push(row);
  }
  return out;
}
