/**
 * Cumulative figures of a closed day for the timeline (docs/metrics.md, "Timeline"): distinct
 * wallets ever active (the running sum of chain_day_metrics.new_wallets, so it follows the
 * active-addresses chart) and coins minted (the genesis supply plus the running sum of
 * chain_daily.minted). The open day adds its own figures to the last closed one on request.
 */
import sql from 'sql-template-tag';
import type { Chart } from '../../engine/rollup.ts';
import { genesisSupply } from '../../supply.ts';

export const timelineTotals: Chart = {
  name: 'timeline_totals',
  part: 'network',
  table: 'chain_timeline_totals',
  async close(db, chain, fromDay, toDay) {
    await db.query(
      'rollups.charts.timeline_totals',
      sql`INSERT INTO chain_timeline_totals (chain, day, wallets, supply)
          SELECT ${chain}, g.d::date,
                 (SELECT coalesce(sum(new_wallets), 0) FROM chain_day_metrics WHERE chain = ${chain} AND day < ${fromDay}::date)
                 + sum(coalesce(m.new_wallets, 0)) OVER (ORDER BY g.d),
                 ${genesisSupply(chain)}
                 + (SELECT coalesce(sum(minted), 0) FROM chain_daily WHERE chain = ${chain} AND day < ${fromDay}::date)
                 + sum(coalesce(c.minted, 0)) OVER (ORDER BY g.d)
          FROM generate_series(${fromDay}::date, ${toDay}::date, interval '1 day') AS g(d)
          LEFT JOIN chain_day_metrics m ON m.chain = ${chain} AND m.day = g.d::date
          LEFT JOIN chain_daily c ON c.chain = ${chain} AND c.day = g.d::date
          ON CONFLICT (chain, day) DO UPDATE SET wallets = excluded.wallets, supply = excluded.supply`,
    );
  },
};
