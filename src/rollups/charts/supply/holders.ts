/**
 * Holders at the end of a closed day (docs/metrics.md, "Holders"): the running sum of the daily
 * holder transitions that address_summary keeps in chain_daily.holders_delta.
 */
import sql from 'sql-template-tag';
import type { Chart } from '../../engine/rollup.ts';

export const holders: Chart = {
  name: 'holders',
  part: 'network',
  table: 'chain_day_metrics',
  async close(db, chain, fromDay, toDay) {
    await db.query(
      'rollups.charts.holders',
      sql`INSERT INTO chain_day_metrics (chain, day, holders)
          SELECT ${chain}, g.d::date,
                 (SELECT coalesce(sum(holders_delta), 0) FROM chain_daily WHERE chain = ${chain} AND day < ${fromDay}::date)
                 + sum(coalesce(c.holders_delta, 0)) OVER (ORDER BY g.d)
          FROM generate_series(${fromDay}::date, ${toDay}::date, interval '1 day') AS g(d)
          LEFT JOIN chain_daily c ON c.chain = ${chain} AND c.day = g.d::date
          ON CONFLICT (chain, day) DO UPDATE SET holders = excluded.holders`,
    );
  },
};
