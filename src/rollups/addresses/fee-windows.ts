/**
 * address_fee_windows: per pos address, the fees it paid, the gas its transactions used and the
 * transactions it sent over each window of FEE_WINDOW_DAYS UTC days ending with the latest block's
 * day (docs/metrics.md, "Top burners"); only addresses that paid fees in the window. These serve
 * top/burners windows given in days, and the whole days of a window in hours or minutes (which ends
 * at the latest block's time: its partial first day is read from the blocks, src/domain/window.ts).
 *
 * A window's figures change when an address pays fees inside it, and when the latest block's day
 * moves (days leave the window, or come back after a reorg). So after every batch (and after a
 * revert's repair) the rows of the addresses the delta touched are recomputed from address_daily,
 * and the days that left or came back into a window are taken off or added to the other
 * addresses' rows. A first run, or a jump past every window, recomputes them all.
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { tipTime, tipTimeSql } from '../shared/tip.ts';
import type { Rollup } from '../engine/rollup.ts';
import { DAILY_DELTAS } from './address-activity.ts';
import { addDays, dayIndex, formatDay } from '../../time.ts';

/**
 * The windows kept, in days. 1 and 2 also serve `24h`, which is the tip's day plus part of the day
 * before: added from the blocks when the tip is in the second half of its day, or taken off the two
 * days when it is in the first (src/domain/window.ts).
 */
export const FEE_WINDOW_DAYS = [1, 2, 7, 30, 90, 365] as const;
const LONGEST = Math.max(...FEE_WINDOW_DAYS);
/** Past this many affected addresses (a bulk load's step), recomputing everything is cheaper. */
const REBUILD_ABOVE = 20_000;
/** Chains that have the leaderboard (top/burners is pos only). */
const CHAINS: readonly ChainId[] = ['pos'];

/** The batch's rows whose addresses are recomputed whole (and so skipped when days leave a window). */
const RECOMPUTED = sql`(fees <> 0 OR tx_out <> 0 OR gas_used <> 0)`;

/** Brings the windows of `chain` up to date after a batch (`batch`: its rows of address_daily's deltas). */
async function keepFeeWindows(db: Db, chain: ChainId, batch: Sql): Promise<void> {
  if (!CHAINS.includes(chain)) return;
  const [row] = await db.query<{ tip: number | null; tip_day: string | null }>(
    'rollups.fee_windows.state',
    sql`SELECT ${tipTimeSql(chain)} AS tip, (SELECT tip_day::text FROM fee_window_state WHERE chain = ${chain}) AS tip_day`,
  );
  if (row?.tip == null) {
    await clear(db, chain);
    return;
  }
  const tipDay = formatDay(row.tip);
  const stateDay = row.tip_day;
  if (stateDay === null || Math.abs(dayIndex(tipDay) - dayIndex(stateDay)) >= LONGEST) {
    await rebuild(db, chain, tipDay);
    return;
  }
  // When the tip's day moves (midnight on a followed chain, or a reorg that takes the tip back
  // across one), the days that leave or come back into each window are taken off or added to the
  // rows of the other addresses: only the batch's own addresses are recomputed.
  const affected = await db.query<{ address: string }>('rollups.fee_windows.affected', sql`SELECT address FROM ${batch} b WHERE ${RECOMPUTED}`);
  // Asked before the days are moved: a bulk step's batch rebuilds, and moving days in rows that
  // are rebuilt anyway would be wasted (and slow) work.
  if (affected.length > REBUILD_ABOVE) {
    await rebuild(db, chain, tipDay);
    return;
  }
  if (tipDay > stateDay) await dropLeavingDays(db, chain, stateDay, tipDay, batch);
  if (tipDay < stateDay) await addReturningDays(db, chain, stateDay, tipDay, batch);
  if (affected.length > 0) {
    const addresses = affected.map((a) => a.address);
    // Each (window, address) pair through the primary key.
    const pairs = FEE_WINDOW_DAYS.flatMap((days) => addresses.map((address) => [days, address] as const));
    await db.query(
      'rollups.fee_windows.clear_affected',
      sql`DELETE FROM address_fee_windows w
          USING unnest(${pairs.map((p) => p[0])}::int[], ${pairs.map((p) => p[1])}::text[]) AS u(days, address)
          WHERE w.chain = ${chain} AND w.days = u.days AND w.address = u.address`,
    );
    await insertWholeRows(db, chain, tipDay, addresses);
  }
  if (stateDay !== tipDay) await setState(db, chain, tipDay);
}

/**
 * Every window's rows of `addresses` (all the chain's without) computed whole from address_daily,
 * for the tip's day `tipDay`: only addresses that paid fees in the window.
 */
async function insertWholeRows(db: Db, chain: ChainId, tipDay: string, addresses?: string[]): Promise<void> {
  await db.query(
    addresses ? 'rollups.fee_windows.recompute' : 'rollups.fee_windows.rebuild',
    sql`INSERT INTO address_fee_windows (chain, days, address, fees, gas_used, tx_count)
        SELECT ${chain}, w.days, d.address, sum(d.fees), sum(d.gas_used), sum(d.tx_out)
        FROM address_daily d
        CROSS JOIN unnest(${[...FEE_WINDOW_DAYS]}::int[]) AS w(days)
        WHERE d.chain = ${chain} ${addresses ? sql`AND d.address = ANY(${addresses}::text[])` : sql``}
          AND d.day > ${tipDay}::date - ${LONGEST}::int AND d.day > ${tipDay}::date - w.days
        GROUP BY w.days, d.address
        HAVING sum(d.fees) > 0`,
  );
}

/** The days one window gains or loses: the window's length, the first and last day. */
interface DayRange {
  days: number;
  first: string;
  last: string;
}

/**
 * Fills the scratch table fee_window_days with the figures of each range's days per window and
 * address, the batch's recomputed addresses left out, and gives it statistics: the statements that
 * join it to address_fee_windows then plan with its real size. Planned with the statistics of a
 * day just indexed (one row expected), the join would run as a nested loop over every row of a
 * window for each address, minutes on a large chain.
 */
async function fillWindowDays(db: Db, chain: ChainId, ranges: DayRange[], batch: Sql): Promise<void> {
  await db.query('rollups.fee_windows.days_clear', sql`DELETE FROM fee_window_days`);
  await db.query(
    'rollups.fee_windows.days',
    sql`INSERT INTO fee_window_days (days, address, fees, gas_used, tx_count)
        SELECT r.days, d.address, sum(d.fees), sum(d.gas_used), sum(d.tx_out)
        FROM unnest(${ranges.map((r) => r.days)}::int[], ${ranges.map((r) => r.first)}::date[], ${ranges.map((r) => r.last)}::date[]) AS r(days, first, last)
        JOIN address_daily d ON d.chain = ${chain} AND d.day BETWEEN r.first AND r.last
        WHERE (d.fees <> 0 OR d.tx_out <> 0 OR d.gas_used <> 0)
          AND NOT EXISTS (SELECT 1 FROM ${batch} x WHERE x.address = d.address AND ${RECOMPUTED})
        GROUP BY r.days, d.address`,
  );
  await db.query('rollups.fee_windows.days_analyze', sql`ANALYZE fee_window_days`);
}

/**
 * Takes the days that leave each window when the tip's day moves forward from `from` to `to` off
 * the windows' rows: a row left without fees is no longer listed (fees are never negative), the
 * others keep the rest of the window. The batch's addresses are skipped: they are recomputed whole.
 */
async function dropLeavingDays(db: Db, chain: ChainId, from: string, to: string, batch: Sql): Promise<void> {
  // The window of tip t is [t - days + 1, t]: the days [from - days + 1, to - days] leave it.
  await fillWindowDays(db, chain, FEE_WINDOW_DAYS.map((days) => ({ days, first: addDays(from, -days + 1), last: addDays(to, -days) })), batch);
  await db.query(
    'rollups.fee_windows.leave_empty',
    sql`DELETE FROM address_fee_windows w USING fee_window_days l
        WHERE w.chain = ${chain} AND w.days = l.days AND w.address = l.address AND w.fees <= l.fees`,
  );
  await db.query(
    'rollups.fee_windows.leave',
    sql`UPDATE address_fee_windows w SET fees = w.fees - l.fees, gas_used = w.gas_used - l.gas_used, tx_count = w.tx_count - l.tx_count
        FROM fee_window_days l
        WHERE w.chain = ${chain} AND w.days = l.days AND w.address = l.address`,
  );
}

/**
 * Adds the days that come back into each window when a reorg takes the tip's day back from `from`
 * to `to` to the rows of the addresses active on them. The days after `to` left with the reverted
 * blocks, and every address that paid on them is the batch's (recomputed whole), as are the batch's
 * addresses here. An address without a row had paid nothing in the rest of the window: if the days
 * coming back paid fees, its row is computed whole.
 */
async function addReturningDays(db: Db, chain: ChainId, from: string, to: string, batch: Sql): Promise<void> {
  // The window of tip t is [t - days + 1, t]: the days [to - days + 1, from - days] come back into it.
  const ranges = FEE_WINDOW_DAYS.map((days) => {
    const last = addDays(from, -days) < to ? addDays(from, -days) : to;
    return { days, first: addDays(to, -days + 1), last };
  }).filter((r) => r.first <= r.last);
  if (ranges.length === 0) return;
  await fillWindowDays(db, chain, ranges, batch);
  await db.query(
    'rollups.fee_windows.return',
    sql`UPDATE address_fee_windows w SET fees = w.fees + r.fees, gas_used = w.gas_used + r.gas_used, tx_count = w.tx_count + r.tx_count
        FROM fee_window_days r
        WHERE w.chain = ${chain} AND w.days = r.days AND w.address = r.address`,
  );
  // The rows still missing are those of addresses without one before: computed whole.
  await db.query(
    'rollups.fee_windows.return_new',
    sql`INSERT INTO address_fee_windows (chain, days, address, fees, gas_used, tx_count)
        SELECT ${chain}, r.days, d.address, sum(d.fees), sum(d.gas_used), sum(d.tx_out)
        FROM fee_window_days r
        JOIN address_daily d ON d.chain = ${chain} AND d.address = r.address AND d.day > ${to}::date - r.days
        WHERE r.fees > 0 AND NOT EXISTS (SELECT 1 FROM address_fee_windows x WHERE x.chain = ${chain} AND x.days = r.days AND x.address = r.address)
        GROUP BY r.days, d.address
        HAVING sum(d.fees) > 0`,
  );
}

/** Recomputes every window of `chain` from address_daily. */
async function rebuildFeeWindows(db: Db, chain: ChainId): Promise<void> {
  if (!CHAINS.includes(chain)) return;
  const tip = await tipTime(db, chain, 'rollups.fee_windows.tip');
  if (tip !== null) await rebuild(db, chain, formatDay(tip));
  else await clear(db, chain);
}

async function rebuild(db: Db, chain: ChainId, tipDay: string): Promise<void> {
  await db.query('rollups.fee_windows.clear', sql`DELETE FROM address_fee_windows WHERE chain = ${chain}`);
  await insertWholeRows(db, chain, tipDay);
  // Statistics from the start, so that the batches after read rows by their key.
  await db.query('rollups.fee_windows.analyze', sql`ANALYZE address_fee_windows`);
  await setState(db, chain, tipDay);
}

async function clear(db: Db, chain: ChainId): Promise<void> {
  await db.query('rollups.fee_windows.clear', sql`DELETE FROM address_fee_windows WHERE chain = ${chain}`);
  await db.query('rollups.fee_windows.clear_state', sql`DELETE FROM fee_window_state WHERE chain = ${chain}`);
}

async function setState(db: Db, chain: ChainId, tipDay: string): Promise<void> {
  await db.query(
    'rollups.fee_windows.set_state',
    sql`INSERT INTO fee_window_state (chain, tip_day) VALUES (${chain}, ${tipDay}::date)
        ON CONFLICT (chain) DO UPDATE SET tip_day = excluded.tip_day`,
  );
}

export const feeWindows: Rollup = {
  name: 'address_fee_windows',
  part: 'addresses',
  tables: ['address_fee_windows', 'fee_window_state'],
  scratchTables: [{ name: 'fee_window_days', columns: 'days int, address text, fees numeric, gas_used bigint, tx_count bigint' }],
  // Reads address_daily as the batch left it (on a revert, after the repair), and its deltas.
  after: ['address_daily'],
  reads: [DAILY_DELTAS],
  apply: (db, step) => keepFeeWindows(db, step.chain, step.rowsOf(DAILY_DELTAS)),
  repair: (db, step) => keepFeeWindows(db, step.chain, step.rowsOf(DAILY_DELTAS)),
  afterRefresh: (db, chain) => rebuildFeeWindows(db, chain),
};
