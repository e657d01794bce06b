/** Addresses first seen on a closed day (docs/metrics.md, "New addresses"), from address_summary's first_seen. */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { ClosedChart } from '../../engine/rollup.ts';
import { readDays } from '../days.ts';

/** Rows (day, n) of the days from `fromDay` to `toDay` with addresses first seen on them: an index range of first_seen. */
function newcomersByDay(chain: ChainId, fromDay: string, toDay: string): Sql {
  return sql`SELECT DATE '1970-01-01' + (first_seen / 86400)::int AS day, count(*)::int AS n FROM address_summary
             WHERE chain = ${chain} AND first_seen >= (${fromDay}::date - DATE '1970-01-01')::bigint * 86400
               AND first_seen < (${toDay}::date - DATE '1970-01-01' + 1)::bigint * 86400
             GROUP BY 1`;
}

export const newAddresses: ClosedChart<{ day: string; new_addresses: number }> = {
  name: 'new_addresses',
  part: 'network',
  table: 'chain_day_metrics',
  async close(db, chain, fromDay, toDay) {
    await db.query(
      'rollups.charts.new_addresses',
      sql`WITH newcomers AS (${newcomersByDay(chain, fromDay, toDay)})
          INSERT INTO chain_day_metrics (chain, day, new_addresses)
          SELECT ${chain}, g.d::date, coalesce(nc.n, 0)
          FROM generate_series(${fromDay}::date, ${toDay}::date, interval '1 day') AS g(d)
          LEFT JOIN newcomers nc ON nc.day = g.d::date
          ON CONFLICT (chain, day) DO UPDATE SET new_addresses = excluded.new_addresses`,
    );
  },
  read: (db, chain, range) =>
    readDays(db, range, {
      label: 'charts.new_addresses',
      closed: (d) => sql`SELECT day::text AS day, new_addresses FROM chain_day_metrics
                         WHERE chain = ${chain} AND day BETWEEN ${d.from}::date AND ${d.to}::date ORDER BY day`,
      // Only the days with newcomers: a series zero-fills the others.
      open: (d) => sql`SELECT day::text AS day, n AS new_addresses FROM (${newcomersByDay(chain, d.from, d.to)}) nc ORDER BY day`,
    }),
};
