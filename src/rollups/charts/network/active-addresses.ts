/**
 * DAU, WAU, MAU and new wallets of a day (docs/metrics.md, "Active addresses"): exact distinct
 * counts of addresses with a user transaction (not coinbase, not an admin transaction, not a
 * withdrawal) on the day, and on the 7 and the 30 days ending on it, from chain_active_gaps
 * (rollups/network/active-days.ts). An address active in the 7 days ending on D is counted once,
 * on its first active day inside them: the day d whose gap reaches back before the window
 * (gap > 6 - (D - d), or 0 for a first day ever).
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { eachDay } from '../../../time.ts';
import { chartSeries, type ClosedChart, type SeriesValue } from '../../engine/rollup.ts';
import { ONE_ITEM_PER_DAY, readDays, type Days } from '../days.ts';

/** Rows (day, dau, wau, mau, new_wallets) of every day from `fromDay` to `toDay`; the API reads the open day through it too. */
export function activeAddressesByDay(chain: ChainId, fromDay: string, toDay: string): Sql {
  return sql`SELECT d.day::date AS day,
                    coalesce(sum(g.addresses) FILTER (WHERE g.day = d.day), 0)::int AS dau,
                    coalesce(sum(g.addresses) FILTER (WHERE g.day > d.day - 7 AND (g.gap = 0 OR g.gap > 6 - (d.day - g.day))), 0)::int AS wau,
                    coalesce(sum(g.addresses) FILTER (WHERE g.gap = 0 OR g.gap > 29 - (d.day - g.day)), 0)::int AS mau,
                    coalesce(sum(g.addresses) FILTER (WHERE g.day = d.day AND g.gap = 0), 0)::int AS new_wallets
             FROM (SELECT s::date AS day FROM generate_series(${fromDay}::date, ${toDay}::date, interval '1 day') AS s) d
             LEFT JOIN chain_active_gaps g ON g.chain = ${chain} AND g.day BETWEEN d.day - 29 AND d.day
             GROUP BY d.day`;
}

/** A day's DAU, WAU, MAU and new wallets. */
export interface ActiveDay {
  day: string;
  dau: number;
  wau: number;
  mau: number;
  new_wallets: number;
}

export const NO_ACTIVITY: Omit<ActiveDay, 'day'> = { dau: 0, wau: 0, mau: 0, new_wallets: 0 };

export const noActivity = (day: string): ActiveDay => ({ day, ...NO_ACTIVITY });

/** The figures of every day of the range that has any, by day: closed days from chain_day_metrics, the open ones computed. */
function readActiveDays(db: Db, chain: ChainId, range: Days): Promise<Map<string, ActiveDay>> {
  // An open day sums at most 30 days of chain_active_gaps rows.
  return readDays(db, range, {
    label: 'charts.active_addresses',
    closed: (d) => sql`SELECT day::text AS day, dau, wau, mau, new_wallets FROM chain_day_metrics
                       WHERE chain = ${chain} AND day BETWEEN ${d.from}::date AND ${d.to}::date ORDER BY day`,
    open: (d) => sql`SELECT day::text AS day, dau, wau, mau, new_wallets FROM (${activeAddressesByDay(chain, d.from, d.to)}) a ORDER BY day`,
  });
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

const activity = { missingDay: { zero: noActivity }, itemsDescription: `${ONE_ITEM_PER_DAY} (partial, current to that block).` } as const;
const count = (description: string): SeriesValue => ({ kind: 'integer', description });

/** Also the running wallet count: the last closed day's before `fromDay` (days close in order), plus the new wallets since. */
export const activeAddresses: ClosedChart<ActiveDay> = {
  name: 'active_addresses',
  part: 'network',
  table: 'chain_day_metrics',
  read: readActiveDays,
  series: [
    chartSeries<ActiveDay>({
      ...activity,
      path: '/analytics/network/active-addresses-daily',
      operationId: 'getActiveAddressesDaily',
      summary: 'Daily, weekly and monthly active addresses per day',
      window: '90d',
      fields: {
        dau: count('Distinct addresses sending or receiving a user transaction that day.'),
        wau: count('Distinct active addresses over the 7 UTC days ending that day.'),
        mau: count('Distinct active addresses over the 30 UTC days ending that day.'),
      },
      envelope: { count: true, days: true, chain: true, network: true },
    }),
    chartSeries<ActiveDay, { day: string; new_addresses: number; returning_addresses: number }>({
      ...activity,
      path: '/analytics/network/new-vs-returning-daily',
      operationId: 'getNewVsReturningDaily',
      summary: 'New and returning active addresses per day',
      window: '30d',
      fields: {
        new_addresses: count('Active addresses whose first user transaction ever is on this day.'),
        returning_addresses: count('Active addresses that had a user transaction on an earlier day (DAU − new).'),
      },
      envelope: { count: true, days: true, chain: true, network: true },
      items: (rows) => rows.map(({ day, dau, new_wallets }) => ({ day, new_addresses: new_wallets, returning_addresses: dau - new_wallets })),
    }),
    chartSeries<{ day: string; new_wallets: number; wallet_count: number }>({
      path: '/analytics/wallet-count',
      operationId: 'getWalletCount',
      summary: 'New wallets per day and the cumulative wallet count',
      window: '30d',
      fields: {
        new_wallets: count('Addresses whose first user transaction ever is on this day.'),
        wallet_count: count('Distinct addresses with a user transaction on this day or before.'),
      },
      itemsDescription: activity.itemsDescription,
      envelope: { count: true, chain: true, network: true, window_days: true },
      // Every day, the running count from the wallets before the range.
      read: async ({ db, chain, range }) => {
        const [rows, before] = await Promise.all([readActiveDays(db, chain, range), walletsBefore(db, chain, range.from)]);
        let total = before;
        return new Map(eachDay(range.from, range.to).map((day) => {
          const new_wallets = rows.get(day)?.new_wallets ?? 0;
          return [day, { day, new_wallets, wallet_count: (total += new_wallets) }];
        }));
      },
      missingDay: 'omit',
    }),
  ],
  async close(db, chain, fromDay, toDay) {
    await db.query(
      'rollups.charts.active_addresses',
      sql`INSERT INTO chain_day_metrics (chain, day, dau, wau, mau, new_wallets, wallet_count)
          SELECT ${chain}, day, dau, wau, mau, new_wallets,
                 coalesce((SELECT wallet_count FROM chain_day_metrics WHERE chain = ${chain} AND day < ${fromDay}::date ORDER BY day DESC LIMIT 1), 0)
                 + sum(new_wallets) OVER (ORDER BY day)
          FROM (${activeAddressesByDay(chain, fromDay, toDay)}) a
          ON CONFLICT (chain, day) DO UPDATE SET dau = excluded.dau, wau = excluded.wau, mau = excluded.mau, new_wallets = excluded.new_wallets,
                                                 wallet_count = excluded.wallet_count`,
    );
  },
};
