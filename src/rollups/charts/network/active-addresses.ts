/**
 * DAU, WAU and MAU of a closed day (docs/metrics.md, "Active addresses"): exact distinct counts of
 * addresses with a user transaction (not coinbase, not a withdrawal) on the day, and on the 7 and
 * the 30 days ending on it. Each address's active days become intervals [day, day + N - 1];
 * merged per address (one ordered pass numbers the runs of days closer than N), they turn into
 * +1/-1 events whose running sum is the count, however many days are closed at once.
 */
import sql from 'sql-template-tag';
import type { Chart } from '../../engine/rollup.ts';

export const activeAddresses: Chart = {
  name: 'active_addresses',
  table: 'chain_day_metrics',
  async close(db, chain, fromDay, toDay) {
    await db.query(
      'rollups.charts.active_addresses',
      sql`WITH act AS (
            SELECT address, day FROM address_daily
            WHERE chain = ${chain} AND user_tx_count > 0 AND day BETWEEN ${fromDay}::date - 29 AND ${toDay}::date
          ),
          ordered AS (
            SELECT address, day, day - lag(day) OVER (PARTITION BY address ORDER BY day) AS gap FROM act
          ),
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
          )
          INSERT INTO chain_day_metrics (chain, day, dau, wau, mau)
          SELECT ${chain}, day, max(active) FILTER (WHERE n = 1), max(active) FILTER (WHERE n = 7), max(active) FILTER (WHERE n = 30)
          FROM running WHERE day >= ${fromDay}::date GROUP BY day
          ON CONFLICT (chain, day) DO UPDATE SET dau = excluded.dau, wau = excluded.wau, mau = excluded.mau`,
    );
  },
};
