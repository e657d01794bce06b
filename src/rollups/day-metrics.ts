/**
 * chain_day_metrics: whole-population figures of closed days. A day is closed once a block of a
 * later day is indexed; a reorg that reaches back into a closed day reopens it (its row is
 * deleted) until it closes again.
 *
 * DAU/WAU/MAU are exact distinct counts of addresses with a user transaction (not coinbase, not a
 * withdrawal) on the day / the 7 / the 30 days ending on it. Each address's active days become
 * intervals [day, day + N - 1]; merged per address (one ordered pass numbers the runs of days
 * closer than N), they turn into +1/-1 events whose running sum is the count, however many days
 * are closed at once.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';

/** Computes (or recomputes) the metrics of the closed days from `fromDay` to `toDay` inclusive. */
export async function closeDays(db: Db, chain: ChainId, fromDay: string, toDay: string): Promise<void> {
  if (fromDay > toDay) return;
  await db.query(
    'rollups.day_metrics.close',
    sql`WITH act AS (
          SELECT address, day FROM address_daily
          WHERE chain = ${chain} AND user_tx_count > 0 AND day BETWEEN ${fromDay}::date - 29 AND ${toDay}::date
        ),
        ordered AS (
          SELECT address, day, day - lag(day) OVER (PARTITION BY address ORDER BY day) AS gap FROM act
        ),
        -- One pass in (address, day) order numbers each address's runs of days closer than 7 and
        -- than 30 days apart; a day is its own 1-day interval.
        runs AS (
          SELECT address, day,
                 sum(CASE WHEN gap IS NULL OR gap > 6 THEN 1 ELSE 0 END) OVER w AS run7,
                 sum(CASE WHEN gap IS NULL OR gap > 29 THEN 1 ELSE 0 END) OVER w AS run30
          FROM ordered
          WINDOW w AS (PARTITION BY address ORDER BY day)
        ),
        intervals AS (
          SELECT 1 AS n, day AS s, day AS e FROM act
          UNION ALL
          SELECT 7, min(day), max(day) + 6 FROM runs GROUP BY address, run7
          UNION ALL
          SELECT 30, min(day), max(day) + 29 FROM runs GROUP BY address, run30
        ),
        deltas AS (
          SELECT n, day, sum(delta) AS delta FROM (
            SELECT n, s AS day, 1 AS delta FROM intervals UNION ALL SELECT n, e + 1, -1 FROM intervals
          ) events GROUP BY n, day
        ),
        grid AS (
          SELECT w.n, g.d::date AS day
          FROM (VALUES (1), (7), (30)) AS w(n)
          CROSS JOIN generate_series(${fromDay}::date - 29, ${toDay}::date, interval '1 day') AS g(d)
        ),
        running AS (
          SELECT grid.n, grid.day, sum(coalesce(deltas.delta, 0)) OVER (PARTITION BY grid.n ORDER BY grid.day) AS active
          FROM grid LEFT JOIN deltas USING (n, day)
        ),
        active AS (
          SELECT day, max(active) FILTER (WHERE n = 1) AS dau, max(active) FILTER (WHERE n = 7) AS wau,
                 max(active) FILTER (WHERE n = 30) AS mau
          FROM running WHERE day >= ${fromDay}::date GROUP BY day
        ),
        newcomers AS (
          SELECT DATE '1970-01-01' + (first_seen / 86400)::int AS day, count(*) AS n FROM address_summary
          WHERE chain = ${chain} AND first_seen >= (${fromDay}::date - DATE '1970-01-01')::bigint * 86400
            AND first_seen < (${toDay}::date - DATE '1970-01-01' + 1)::bigint * 86400
          GROUP BY 1
        ),
        holders AS (
          SELECT a.day, (SELECT coalesce(sum(holders_delta), 0) FROM chain_daily WHERE chain = ${chain} AND day < ${fromDay}::date)
                        + sum(coalesce(c.holders_delta, 0)) OVER (ORDER BY a.day) AS holders
          FROM active a LEFT JOIN chain_daily c ON c.chain = ${chain} AND c.day = a.day
        )
        INSERT INTO chain_day_metrics (chain, day, dau, wau, mau, new_addresses, holders)
        SELECT ${chain}, a.day, a.dau, a.wau, a.mau, coalesce(nc.n, 0), h.holders
        FROM active a JOIN holders h USING (day) LEFT JOIN newcomers nc USING (day)
        ON CONFLICT (chain, day) DO UPDATE SET dau = excluded.dau, wau = excluded.wau, mau = excluded.mau,
          new_addresses = excluded.new_addresses, holders = excluded.holders`,
  );
}

/** Reopens closed days from `fromDay` on (a reorg reached them). */
export async function reopenDays(db: Db, chain: ChainId, fromDay: string): Promise<void> {
  await db.query('rollups.day_metrics.reopen', sql`DELETE FROM chain_day_metrics WHERE chain = ${chain} AND day >= ${fromDay}::date`);
}
