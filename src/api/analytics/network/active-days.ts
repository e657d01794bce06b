/**
 * DAU, WAU, MAU and new wallets per day (docs/metrics.md, "Network activity"), shared by the
 * active-address, new-vs-returning, wallet-count and page-summary routes: the active-addresses
 * chart's rows (rollups/charts/network/active-addresses.ts), the open day computed live.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import { activeAddresses, type ActiveDay } from '../../../rollups/charts/network/active-addresses.ts';
import type { Db } from '../../../store/store.ts';
import type { Static, TObject, TProperties } from 'typebox';
import type { ApiContext, RouteApp } from '../../context.ts';
import { dailySeries, ONE_ITEM_PER_DAY } from '../route.ts';

export type { ActiveDay };

export const NO_ACTIVITY: Omit<ActiveDay, 'day'> = { dau: 0, wau: 0, mau: 0, new_wallets: 0 };

export const noActivity = (day: string): ActiveDay => ({ day, ...NO_ACTIVITY });

/** The figures of every day from `from` to `to` (the tip's day) that has any, by day. */
export function activeDays(db: Db, chain: ChainId, range: { from: string; to: string }): Promise<Map<string, ActiveDay>> {
  return activeAddresses.read!(db, chain, range);
}

/**
 * Distinct addresses whose first active day is before `day`: the running count of the last closed
 * day before it, plus the new wallets of the open days between (normally none or one).
 */
export async function walletsBefore(db: Db, chain: ChainId, day: string): Promise<number> {
  const [row] = await db.query<{ wallets: string }>(
    'analytics.wallets_before',
    sql`WITH closed AS (SELECT day, wallet_count FROM chain_day_metrics WHERE chain = ${chain} AND day < ${day}::date ORDER BY day DESC LIMIT 1)
        SELECT ((SELECT coalesce(max(wallet_count), 0) FROM closed)
              + (SELECT coalesce(sum(g.addresses), 0) FROM chain_active_gaps g
                 WHERE g.chain = ${chain} AND g.gap = 0 AND g.day < ${day}::date
                   AND g.day > coalesce((SELECT day FROM closed), DATE '1970-01-01')))::text AS wallets`,
  );
  return Number(row?.wallets ?? 0);
}

/** A series of the active-addresses chart: every day's figures (zeros on a day without activity), as `items` maps them. */
export function activitySeries<Item extends TObject, E extends TProperties>(
  app: RouteApp,
  ctx: ApiContext,
  series: { path: string; operationId: string; summary: string; window: string; item: Item; envelope: E; items(rows: ActiveDay[]): Static<Item>[] },
): void {
  dailySeries(app, ctx, {
    ...series,
    itemsDescription: `${ONE_ITEM_PER_DAY} (partial, current to that block).`,
    read: (range, { chain }) => activeDays(ctx.store, chain, range),
    missingDay: { zero: noActivity },
  });
}
