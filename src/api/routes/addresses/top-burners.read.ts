/**
 * The reads of GET /{chain}/addresses/top/burners: the addresses that paid the most fees in a
 * window (docs/metrics.md, "Top burners"). A window in minutes or hours ends exactly at the latest
 * block's time; one in days, weeks or years is whole UTC days ending with its day.
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Store } from '../../../store/store.ts';
import { FEE_WINDOW_DAYS } from '../../../rollups/addresses/fee-windows.ts';
import { tipTimeSql } from '../../../rollups/shared/tip.ts';
import { addDays, dayIndex, formatDay } from '../../../time.ts';
import { dayCover, windowEndingAt, type DayCover, type TipWindow } from '../../../domain/window.ts';

export interface BurnerRow {
  address: string;
  tx_count: number;
  fees: string;
  gas_used: number;
}

/** What the board covers: whole UTC days ending with the tip's day, or seconds ending at the tip's time. */
export type BurnerWindow = { days: number } | { seconds: number };

/** The window as UTC days: the `days` days ending with the tip's day. */
function windowDays(tipTs: number, days: number): { from: string; to: string } {
  const to = formatDay(tipTs);
  return { from: addDays(to, 1 - days), to };
}

/** The senders of the blocks in [from, to] (inclusive times): transactions, fees and gas, times `sign`. */
function edgeSql(chain: ChainId, edge: NonNullable<DayCover['edge']>): Sql {
  return sql`SELECT t.from_addr AS address, ${edge.sign}::int * count(*) AS tx_count, ${edge.sign}::int * sum(t.fee) AS fees,
                    ${edge.sign}::int * sum(coalesce(t.gas_used, 0)) AS gas_used
             FROM blocks b JOIN transactions t ON t.chain = b.chain AND t.height = b.height
             WHERE b.chain = ${chain} AND b.ts BETWEEN ${edge.from}::bigint AND ${edge.to}::bigint
             GROUP BY t.from_addr`;
}

/**
 * The board of a window ending at the latest block (src/domain/window.ts), exact to the block: its
 * whole UTC days plus (or less) the transactions of its partial first day, read from the blocks
 * (half a day of them at most). When the whole days are a window kept with the blocks
 * (address_fee_windows, current to the tip's day), the candidates are the edge's senders and the
 * first `limit` + (edge senders) rows of that window in its index order: every other address keeps
 * its kept figure, and at least `limit` unchanged rows come before it. Otherwise the days' fee
 * payers are read from their partial index (address_daily_fee_payers). Either way the listed
 * addresses' transactions and gas over the whole days are then summed from all their address_daily
 * rows by key, so a transaction that paid no fee still counts as sent.
 */
async function rollingBurners(store: Store, chain: ChainId, w: TipWindow, limit: number, keptDay: string | null): Promise<BurnerRow[]> {
  const c = dayCover(w);
  const edge = edgeSql(chain, c.edge ?? { from: 1, to: 0, sign: 1 });
  const wholeDays = c.firstDay <= c.lastDay ? dayIndex(c.lastDay) - dayIndex(c.firstDay) + 1 : 0;
  const kept = keptDay === c.lastDay && (FEE_WINDOW_DAYS as readonly number[]).includes(wholeDays);
  const ranked = kept
    ? sql`SELECT x.address, coalesce(k.fees, 0) + coalesce(e.fees, 0) AS fees
          FROM (
            (SELECT address FROM address_fee_windows WHERE chain = ${chain} AND days = ${wholeDays}::int
             ORDER BY fees DESC, address LIMIT ${limit}::int + (SELECT count(*) FROM edge))
            UNION SELECT address FROM edge
          ) x
          LEFT JOIN address_fee_windows k ON k.chain = ${chain} AND k.days = ${wholeDays}::int AND k.address = x.address
          LEFT JOIN edge e ON e.address = x.address
          WHERE coalesce(k.fees, 0) + coalesce(e.fees, 0) > 0
          ORDER BY 2 DESC, x.address LIMIT ${limit}::int`
    : sql`SELECT address, sum(fees) AS fees FROM (
            SELECT address, fees FROM address_daily
            WHERE chain = ${chain} AND day BETWEEN ${c.firstDay}::date AND ${c.lastDay}::date AND fees > 0
            UNION ALL SELECT address, fees FROM edge
          ) x
          GROUP BY address HAVING sum(fees) > 0
          ORDER BY sum(fees) DESC, address LIMIT ${limit}::int`;
  return store.query<BurnerRow>(
    kept ? 'addresses.burners.rolling_kept' : 'addresses.burners.rolling',
    sql`WITH edge AS (${edge}), ranked AS (${ranked})
        SELECT r.address, r.fees::text AS fees,
               coalesce(d.tx_count, 0) + coalesce(e.tx_count, 0) AS tx_count, coalesce(d.gas_used, 0) + coalesce(e.gas_used, 0) AS gas_used
        FROM ranked r
        LEFT JOIN edge e ON e.address = r.address
        LEFT JOIN LATERAL (
          SELECT sum(tx_out)::bigint AS tx_count, sum(gas_used)::bigint AS gas_used FROM address_daily
          WHERE chain = ${chain} AND address = r.address AND day BETWEEN ${c.firstDay}::date AND ${c.lastDay}::date
        ) d ON true
        ORDER BY r.fees DESC, r.address`,
  );
}

/** The board of `window` ending at the latest block (pos; pow burns nothing: no rows). */
export async function readTopBurners(store: Store, chain: ChainId, limit: number, window: BurnerWindow): Promise<BurnerRow[]> {
  if (chain !== 'pos') return [];
  const [span] = await store.query<{ tip_ts: number | null; first_ts: number | null; kept_day: string | null }>(
    'addresses.burners.span',
    sql`SELECT ${tipTimeSql(chain)} AS tip_ts,
               (SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height LIMIT 1) AS first_ts,
               (SELECT tip_day FROM fee_window_state WHERE chain = ${chain}) AS kept_day`,
    { reusePlan: true }, // key lookups
  );
  if (span?.tip_ts == null || span.first_ts == null) return [];
  const tipTs = Number(span.tip_ts);
  const firstTs = Number(span.first_ts);
  let rows: BurnerRow[];
  const days = 'days' in window ? window.days : null;
  const rolling = 'seconds' in window ? windowEndingAt(tipTs, window.seconds) : null;
  const range = days === null ? null : windowDays(tipTs, days);
  // The whole history: every block after the window's start (the first block's day, for days).
  const wholeHistory = rolling ? rolling.after < firstTs && firstTs <= tipTs : range!.from <= formatDay(firstTs);
  if (range && (FEE_WINDOW_DAYS as readonly number[]).includes(days!) && span.kept_day === range.to) {
    // A window kept with the blocks (src/rollups/addresses/fee-windows.ts), read in the order of its index.
    rows = await store.query<BurnerRow>(
      'addresses.burners.kept',
      sql`SELECT address, tx_count, fees, gas_used FROM address_fee_windows
          WHERE chain = ${chain} AND days = ${days}
          ORDER BY fees DESC, address LIMIT ${limit}`,
      { reusePlan: true }, // the window's index, in order
    );
  } else if (wholeHistory) {
    // The window holds the whole history: the all-time totals, in the order of their index.
    rows = await store.query<BurnerRow>(
      'addresses.burners.all_time',
      sql`SELECT address, tx_sent_count AS tx_count, total_fees_paid AS fees, gas_used FROM address_summary
          WHERE chain = ${chain} AND total_fees_paid > 0
          ORDER BY total_fees_paid DESC, address LIMIT ${limit}`,
    );
  } else if (rolling) {
    rows = await rollingBurners(store, chain, rolling, limit, span.kept_day);
  } else {
    // Any other window of days: summed from the days it covers.
    rows = await store.query<BurnerRow>(
      'addresses.burners.window',
      sql`SELECT address, sum(tx_out)::bigint AS tx_count, sum(fees) AS fees, sum(gas_used)::bigint AS gas_used
          FROM address_daily
          WHERE chain = ${chain} AND day >= ${range!.from}::date
          GROUP BY address
          HAVING sum(fees) > 0
          ORDER BY sum(fees) DESC, address LIMIT ${limit}`,
    );
  }
  return rows;
}
