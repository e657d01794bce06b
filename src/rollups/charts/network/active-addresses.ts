/**
 * DAU, WAU, MAU and new wallets of a day (docs/metrics.md, "Active addresses"): exact distinct
 * counts of addresses with a user transaction (not coinbase, not an admin transaction, not a
 * withdrawal) on the day, and on the 7 and the 30 days ending on it, from chain_active_gaps
 * (active-days.ts). An address active in the 7 days ending on D is counted once, on its first
 * active day inside them: the day d whose gap reaches back before the window (gap > 6 - (D - d),
 * or 0 for a first day ever).
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Chart } from '../../engine/rollup.ts';
import { readDays } from '../days.ts';

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

/** Also the running wallet count: the last closed day's before `fromDay` (days close in order), plus the new wallets since. */
export const activeAddresses: Chart<ActiveDay> = {
  name: 'active_addresses',
  part: 'network',
  table: 'chain_day_metrics',
  // An open day sums at most 30 days of chain_active_gaps rows.
  read: (db, chain, range) =>
    readDays(db, range, {
      label: 'charts.active_addresses',
      closed: (d) => sql`SELECT day::text AS day, dau, wau, mau, new_wallets FROM chain_day_metrics
                         WHERE chain = ${chain} AND day BETWEEN ${d.from}::date AND ${d.to}::date ORDER BY day`,
      open: (d) => sql`SELECT day::text AS day, dau, wau, mau, new_wallets FROM (${activeAddressesByDay(chain, d.from, d.to)}) a ORDER BY day`,
    }),
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
