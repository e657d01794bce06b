/**
 * Cumulative figures of a closed day for the timeline (docs/metrics.md, "Timeline"): distinct
 * wallets ever active (the running sum of chain_day_metrics.new_wallets, so it follows the
 * active-addresses chart) and coins minted (the genesis supply plus the running sum of
 * chain_daily.minted). An open day adds its own figures to the last closed day's totals.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { addDays, eachDay } from '../../../time.ts';
import type { ClosedChart } from '../../engine/rollup.ts';
import { genesisSupply } from '../../supply/supply.ts';
import { activeAddressesByDay } from '../network/active-addresses.ts';
import { openDays, type Days } from '../days.ts';

/** The running totals at a day's end, in addresses and in the chain's smallest unit. */
export interface TimelineTotal {
  day: string;
  wallets: bigint;
  supply: bigint;
}

async function readTotals(db: Db, chain: ChainId, range: Days): Promise<Map<string, TimelineTotal>> {
  const closed = await db.query<{ day: string; wallets: string; supply: string }>(
    'charts.timeline_totals.closed',
    sql`SELECT day::text AS day, wallets::text, supply::text FROM chain_timeline_totals
        WHERE chain = ${chain} AND day BETWEEN ${range.from}::date AND ${range.to}::date ORDER BY day`,
    { reusePlan: true }, // a primary-key range
  );
  const out = new Map(closed.map((r) => [r.day, { day: r.day, wallets: BigInt(r.wallets), supply: BigInt(r.supply) }]));
  const open = openDays(range, closed.at(-1)?.day ?? null);
  if (!open) return out;
  // The totals of the latest closed day before the open ones (none: nothing, or the genesis
  // allocations), then each open day's own figures, from the day after it.
  const [base] = await db.query<{ day: string | null; wallets: string | null; supply: string | null; genesis: string }>(
    'charts.timeline_totals.base',
    sql`SELECT b.day::text AS day, b.wallets::text, b.supply::text, ${genesisSupply(chain)}::text AS genesis
        FROM (SELECT 1) one LEFT JOIN LATERAL (
          SELECT day, wallets, supply FROM chain_timeline_totals WHERE chain = ${chain} AND day < ${open.from}::date ORDER BY day DESC LIMIT 1
        ) b ON true`,
  );
  const first = base?.day ? addDays(base.day, 1) : open.from;
  const live = await db.query<{ day: string; new_wallets: number | null; minted: string | null }>(
    'charts.timeline_totals.open',
    sql`SELECT a.day::text AS day, a.new_wallets, c.minted::text AS minted
        FROM (${activeAddressesByDay(chain, first, open.to)}) a
        LEFT JOIN chain_daily c ON c.chain = ${chain} AND c.day = a.day`,
  );
  const byDay = new Map(live.map((r) => [r.day, r]));
  let wallets = BigInt(base?.wallets ?? 0);
  let supply = BigInt(base?.supply ?? base?.genesis ?? 0);
  for (const day of eachDay(first, open.to)) {
    const r = byDay.get(day);
    wallets += BigInt(r?.new_wallets ?? 0);
    supply += BigInt(r?.minted ?? 0);
    if (day >= open.from) out.set(day, { day, wallets, supply });
  }
  return out;
}

export const timelineTotals: ClosedChart<TimelineTotal> = {
  name: 'timeline_totals',
  part: 'network',
  table: 'chain_timeline_totals',
  read: readTotals,
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
