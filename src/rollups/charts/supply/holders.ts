/**
 * Holders at the end of a closed day (docs/metrics.md, "Holders"): the running sum of the daily
 * holder transitions that address_summary keeps in chain_daily.holders_delta.
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { ClosedChart } from '../../engine/rollup.ts';
import { readDays } from '../days.ts';

/** Rows (day, holders) of every day from `fromDay` to `toDay`: the transitions before it, and of each day up to it. */
function holdersByDay(chain: ChainId, fromDay: string, toDay: string): Sql {
  return sql`SELECT g.d::date AS day,
                    ((SELECT coalesce(sum(holders_delta), 0) FROM chain_daily WHERE chain = ${chain} AND day < ${fromDay}::date)
                     + sum(coalesce(c.holders_delta, 0)) OVER (ORDER BY g.d))::int AS holders
             FROM generate_series(${fromDay}::date, ${toDay}::date, interval '1 day') AS g(d)
             LEFT JOIN chain_daily c ON c.chain = ${chain} AND c.day = g.d::date`;
}

export const holders: ClosedChart<{ day: string; holders: number }> = {
  name: 'holders',
  part: 'network',
  table: 'chain_day_metrics',
  async close(db, chain, fromDay, toDay) {
    await db.query(
      'rollups.charts.holders',
      sql`INSERT INTO chain_day_metrics (chain, day, holders)
          SELECT ${chain}, day, holders FROM (${holdersByDay(chain, fromDay, toDay)}) h
          ON CONFLICT (chain, day) DO UPDATE SET holders = excluded.holders`,
    );
  },
  read: (db, chain, range) =>
    readDays(db, range, {
      label: 'charts.holders',
      closed: (d) => sql`SELECT day::text AS day, holders FROM chain_day_metrics
                         WHERE chain = ${chain} AND day BETWEEN ${d.from}::date AND ${d.to}::date ORDER BY day`,
      open: (d) => sql`SELECT day::text AS day, holders FROM (${holdersByDay(chain, d.from, d.to)}) h ORDER BY day`,
    }),
};
