/** Addresses first seen on a closed day (docs/metrics.md, "New addresses"), from address_summary's first_seen. */
import sql from 'sql-template-tag';
import type { Chart } from '../../engine/rollup.ts';

export const newAddresses: Chart = {
  name: 'new_addresses',
  part: 'network',
  table: 'chain_day_metrics',
  async close(db, chain, fromDay, toDay) {
    await db.query(
      'rollups.charts.new_addresses',
      sql`WITH newcomers AS (
            SELECT DATE '1970-01-01' + (first_seen / 86400)::int AS day, count(*) AS n FROM address_summary
            WHERE chain = ${chain} AND first_seen >= (${fromDay}::date - DATE '1970-01-01')::bigint * 86400
              AND first_seen < (${toDay}::date - DATE '1970-01-01' + 1)::bigint * 86400
            GROUP BY 1
          )
          INSERT INTO chain_day_metrics (chain, day, new_addresses)
          SELECT ${chain}, g.d::date, coalesce(nc.n, 0)
          FROM generate_series(${fromDay}::date, ${toDay}::date, interval '1 day') AS g(d)
          LEFT JOIN newcomers nc ON nc.day = g.d::date
          ON CONFLICT (chain, day) DO UPDATE SET new_addresses = excluded.new_addresses`,
    );
  },
};
