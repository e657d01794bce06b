/**
 * DAU, WAU, MAU and new wallets per day (docs/metrics.md, "Network activity"), shared by the
 * active-address, new-vs-returning, wallet-count and page-summary routes: closed days from
 * chain_day_metrics, the open day (and any day not closed yet) summed from at most 30 days of
 * chain_active_gaps rows per day.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import { activeAddressesByDay } from '../../../rollups/charts/network/active-addresses.ts';
import type { Db } from '../../../store/store.ts';
import { addDays } from '../../../time.ts';

export interface ActiveDay {
  day: string;
  dau: number;
  wau: number;
  mau: number;
  new_wallets: number;
}

export const NO_ACTIVITY: Omit<ActiveDay, 'day'> = { dau: 0, wau: 0, mau: 0, new_wallets: 0 };

/** The figures of every day from `from` to `to` (the tip's day) that has any, by day. */
export async function activeDays(db: Db, chain: ChainId, range: { from: string; to: string }): Promise<Map<string, ActiveDay>> {
  const closed = await db.query<ActiveDay>(
    'analytics.active_days.closed',
    sql`SELECT day::text AS day, dau, wau, mau, new_wallets FROM chain_day_metrics
        WHERE chain = ${chain} AND day >= ${range.from}::date AND day < ${range.to}::date ORDER BY day`,
    { reusePlan: true }, // a primary-key range
  );
  const byDay = new Map(closed.map((r) => [r.day, r]));
  // Days close in order: what follows the last closed one (normally the tip's day alone) is open.
  const last = closed.at(-1)?.day;
  const openFrom = last === undefined ? range.from : addDays(last, 1);
  const open = await db.query<ActiveDay>(
    'analytics.active_days.open',
    sql`SELECT day::text AS day, dau, wau, mau, new_wallets FROM (${activeAddressesByDay(chain, openFrom, range.to)}) a ORDER BY day`,
  );
  for (const r of open) byDay.set(r.day, r);
  return byDay;
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
