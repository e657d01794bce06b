/**
 * What the staking routes share (docs/metrics.md, "Staking"): the window as whole UTC days ending with
 * the latest staking day (the beacon sync's, not the blocks'), clipped to the first one, and the
 * window's staking_daily rows, a day without one zero-filled. pow has no validators: no days.
 */
import sql from 'sql-template-tag';
import { Type, type Static, type TObject } from 'typebox';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { WindowQuery } from '../../schemas/common.ts';
import { dailySeries, envelope, type SeriesSpan } from '../route.ts';
import { AnalyticsChain, dayRows, fillDays, type DayRange } from '../series.ts';

export const STAKING_WINDOW = '365d';

export const StakingQuery = Type.Object({
  chain: AnalyticsChain,
  window: WindowQuery(STAKING_WINDOW, 'Window: whole UTC days ending with the latest staking day (a length rounds up to days)'),
});

export const STAKING_ITEMS_DESCRIPTION =
  'One item per UTC day, oldest first, from the later of the window start and the first staking day to the latest staking day, zero-filled; empty on pow (no validators).';

export interface StakingDay {
  day: string;
  active_validators: number;
  total_staked: bigint;
  rewards: bigint;
  rewarded_validators: number;
  slashings: number;
  nakamoto_33: number;
}

/** The first and the latest staking day: the staking series' span (none on pow). */
export const stakingSpan: SeriesSpan = async (db, chain) => {
  if (chain === 'pow') return null;
  const [span] = await db.query<{ first: string | null; last: string | null }>(
    'analytics.staking.span',
    sql`SELECT (SELECT day::text FROM staking_daily WHERE chain = ${chain} ORDER BY day LIMIT 1) AS first,
               (SELECT day::text FROM staking_daily WHERE chain = ${chain} ORDER BY day DESC LIMIT 1) AS last`,
    { reusePlan: true }, // two key lookups
  );
  return span?.first && span.last ? { first: span.first, last: span.last } : null;
};

/** A day without a staking_daily row: zero in every figure. */
export const noStaking = (day: string): StakingDay => ({
  day, active_validators: 0, total_staked: 0n, rewards: 0n, rewarded_validators: 0, slashings: 0, nakamoto_33: 0,
});

/** A staking series: the window ends with the latest staking day; each day's items from its row (zeros without one). */
export function stakingSeries<Item extends TObject>(
  app: RouteApp,
  ctx: ApiContext,
  series: { path: string; operationId: string; summary: string; item: Item; items(rows: StakingDay[], range: DayRange, chain: ChainId): Promise<Static<Item>[]> | Static<Item>[] },
): void {
  dailySeries(app, ctx, {
    path: series.path,
    operationId: series.operationId,
    summary: series.summary,
    window: STAKING_WINDOW,
    query: StakingQuery,
    item: series.item,
    itemsDescription: STAKING_ITEMS_DESCRIPTION,
    envelope: { ...envelope('count', 'network'), window_days: Type.Integer({ description: 'The window in days, as asked.' }) },
    span: stakingSpan,
    // The items are made here, where they may read more (the supply of each day).
    read: async (range, { chain }) => {
      const rows = fillDays(range, await stakingDays(ctx.store, chain, range), { zero: noStaking });
      const items = await series.items(rows, range, chain);
      return new Map(items.map((item, i) => [rows[i]!.day, item]));
    },
    missingDay: 'omit',
  });
}

/** The staking_daily rows of the range, keyed by day. */
export async function stakingDays(db: Db, chain: ChainId, range: { from: string; to: string }): Promise<Map<string, StakingDay>> {
  const rows = await dayRows<{ day: string; active_validators: number; total_staked: string; rewards: string; rewarded_validators: number; slashings: number; nakamoto_33: number | null }>(
    db,
    'analytics.staking.days',
    sql`SELECT day::text AS day, active_validators, total_staked::text AS total_staked, rewards::text AS rewards, rewarded_validators, slashings, nakamoto_33
        FROM staking_daily WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date ORDER BY day`,
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
