/**
 * Per-address activity rollups: address_daily (value and logical transactions per UTC day) and
 * address_heatmap (logical transactions per UTC weekday and hour), merged from delta_daily and
 * delta_heatmap. Both are sums: revert subtracts and drops rows that fall to zero.
 */
import sql, { raw } from 'sql-template-tag';
import { dayName, dayNumber } from '../../time.ts';
import { nestedRowsOf } from '../engine/delta-tables.ts';
import { entryOf, type DeltaReducer, type StepScope } from '../engine/reducer.ts';
import type { DeltaTable, Rollup, ScratchTable } from '../engine/rollup.ts';

/** What a step adds to an address's day. */
export interface DailyDelta {
  received: bigint;
  sent: bigint;
  fees: bigint;
  feesBurned: bigint;
  gasUsed: number;
  txIn: number;
  txOut: number;
  txCount: number;
  userTxCount: number;
}

const emptyDaily = (): DailyDelta => ({ received: 0n, sent: 0n, fees: 0n, feesBurned: 0n, gasUsed: 0, txIn: 0, txOut: 0, txCount: 0, userTxCount: 0 });

/** address → day number (dayName gives its date) → figures, of the kept addresses (StepScope.keeps). */
interface Days {
  scope: StepScope;
  byAddress: Map<string, Map<number, DailyDelta>>;
  entries: number;
}

function dayOf(acc: Days, address: string, day: number): DailyDelta {
  return entryOf(acc.byAddress, address, day, emptyDaily, acc.scope.keeps(address), () => acc.entries++);
}

/** Per address and UTC day: value received, sent and paid, and the transactions taken part in. */
export const dailyReducer: DeltaReducer<Days> = {
  start: (scope) => ({ scope, byAddress: new Map(), entries: 0 }),
  receipt(acc, { address, amount, day }) {
    dayOf(acc, address, day).received += amount;
  },
  tx(acc, { tx, day, debit, user, participants, ins, outs }) {
    const senderDay = dayOf(acc, tx.from, day);
    senderDay.sent += debit;
    senderDay.fees += tx.fee;
    senderDay.feesBurned += tx.burned;
    senderDay.gasUsed += tx.gasUsed ?? 0;
    for (const frame of tx.internal) dayOf(acc, frame.from, day).sent += frame.value;
    for (const address of participants) {
      const d = dayOf(acc, address, day);
      d.txCount++;
      if (ins.has(address)) d.txIn++;
      if (outs.includes(address)) d.txOut++;
      if (user) d.userTxCount++;
    }
  },
  opening(acc, opening, ts) {
    if (opening.amount !== null) dayOf(acc, opening.address, dayNumber(ts)).received += opening.amount;
  },
  size: (acc) => acc.entries,
};

interface HeatmapDelta {
  txIn: number;
  txOut: number;
  txTotal: number;
}

const emptyHeatmap = (): HeatmapDelta => ({ txIn: 0, txOut: 0, txTotal: 0 });

/** address → dayOfWeek * 24 + hour → counts, of the kept addresses. */
interface Slots {
  scope: StepScope;
  byAddress: Map<string, Map<number, HeatmapDelta>>;
  entries: number;
}

/** Per address and UTC weekday-hour: the transactions taken part in. */
const heatmapReducer: DeltaReducer<Slots> = {
  start: (scope) => ({ scope, byAddress: new Map(), entries: 0 }),
  tx(acc, { dayOfWeek, hour, participants, ins, outs }) {
    for (const address of participants) {
      const h = entryOf(acc.byAddress, address, dayOfWeek * 24 + hour, emptyHeatmap, acc.scope.keeps(address), () => acc.entries++);
      h.txTotal++;
      if (ins.has(address)) h.txIn++;
      if (outs.includes(address)) h.txOut++;
    }
  },
  size: (acc) => acc.entries,
};

// The merge into rows already there: the sums add.
const mergeDaily = sql`ORDER BY address, day
        ON CONFLICT (chain, address, day) DO UPDATE SET
          received = a.received + excluded.received, sent = a.sent + excluded.sent, fees = a.fees + excluded.fees,
          fees_burned = a.fees_burned + excluded.fees_burned, gas_used = a.gas_used + excluded.gas_used,
          tx_in = a.tx_in + excluded.tx_in, tx_out = a.tx_out + excluded.tx_out, tx_count = a.tx_count + excluded.tx_count,
          user_tx_count = a.user_tx_count + excluded.user_tx_count`;

/**
 * daily_after: the batch's rows of address_daily as the batch leaves them (the figures the rollups
 * after this one read per row of delta_daily), so that they need not look each row up again:
 * returned by `apply`'s merge (not into an empty table: the rollups after it rebuild) and by
 * `revert`'s subtraction (less the rows it leaves empty, which go).
 */
export const DAILY_AFTER: ScratchTable = { name: 'daily_after', columns: 'address text, day date, tx_count int, received numeric, sent numeric, fees numeric, user_tx_count int' };
const DAILY_AFTER_FIELDS = ['address', 'day', 'tx_count', 'received', 'sent', 'fees', 'user_tx_count'];
const DAILY_AFTER_COLUMNS = raw(DAILY_AFTER_FIELDS.join(', '));

/** A row of address_daily (alias `row`) with nothing left in it: a revert removes it. */
const emptyDay = (row: string) => raw(`${row}.tx_count = 0 AND ${row}.received = 0 AND ${row}.sent = 0 AND ${row}.fees = 0`);

/** Rows of one step past which address_daily's statistics are taken again (a bulk step; a followed block has hundreds). */
const ANALYZE_DAILY_ROWS = 200_000;

/** The step's per-address-and-day deltas, merged into address_daily. */
export const DAILY_DELTAS: DeltaTable<Days> = {
  name: 'delta_daily',
  columns: `address text, day date, received numeric, sent numeric, fees numeric, fees_burned numeric, gas_used bigint,
    tx_in int, tx_out int, tx_count int, user_tx_count int`,
  rows: (acc) => nestedRowsOf(acc.byAddress, (address, day, d) => [
    address, dayName(day), d.received, d.sent, d.fees, d.feesBurned, d.gasUsed, d.txIn, d.txOut, d.txCount, d.userTxCount,
  ]),
  analyze: true,
  direct: 'address_daily',
};

export const addressDaily: Rollup<Days> = {
  name: 'address_daily',
  part: 'addresses',
  tables: ['address_daily'],
  deltas: dailyReducer,
  scratchTables: [DAILY_AFTER],
  deltaTables: [DAILY_DELTAS],
  async apply(db, { chain, fresh, deltas }) {
    // Into a table with no row of the chain the rows were copied straight in (and the rollups after
    // this one rebuild from it, or read the step's rows there: no daily_after, and the copy analysed it).
    if (fresh.has('address_daily')) return;
    await db.query(
      'rollups.daily.apply',
      sql`WITH merged AS (
            INSERT INTO address_daily AS a (chain, address, day, received, sent, fees, fees_burned, gas_used, tx_in, tx_out, tx_count, user_tx_count)
            SELECT ${chain}, address, day, received, sent, fees, fees_burned, gas_used, tx_in, tx_out, tx_count, user_tx_count FROM delta_daily
            ${mergeDaily} RETURNING ${DAILY_AFTER_COLUMNS})
          INSERT INTO daily_after (${DAILY_AFTER_COLUMNS}) SELECT ${DAILY_AFTER_COLUMNS} FROM merged`,
    );
    // A bulk step adds its chain's rows by the million; the rollups after this one read address_daily by
    // chain and day, and statistics from before the step (autovacuum's, at whatever moment it came)
    // can count the chain's rows as none and plan nested loops over them.
    if (deltas.entries >= ANALYZE_DAILY_ROWS) await db.query('rollups.daily.analyze', sql`ANALYZE address_daily`);
  },
  async revert(db, { chain }) {
    await db.query(
      'rollups.daily.revert',
      sql`WITH reverted AS (
            UPDATE address_daily a SET
              received = a.received - d.received, sent = a.sent - d.sent, fees = a.fees - d.fees,
              fees_burned = a.fees_burned - d.fees_burned, gas_used = a.gas_used - d.gas_used,
              tx_in = a.tx_in - d.tx_in, tx_out = a.tx_out - d.tx_out, tx_count = a.tx_count - d.tx_count,
              user_tx_count = a.user_tx_count - d.user_tx_count
            FROM delta_daily d
            WHERE a.chain = ${chain} AND a.address = d.address AND a.day = d.day
            RETURNING ${raw(DAILY_AFTER_FIELDS.map((column) => `a.${column}`).join(', '))})
          INSERT INTO daily_after (${DAILY_AFTER_COLUMNS}) SELECT ${DAILY_AFTER_COLUMNS} FROM reverted r WHERE NOT (${emptyDay('r')})`,
    );
    await db.query(
      'rollups.daily.remove_empty',
      sql`DELETE FROM address_daily a USING delta_daily d
          WHERE a.chain = ${chain} AND a.address = d.address AND a.day = d.day AND ${emptyDay('a')}`,
    );
  },
  async clearTouched(db, chain, { addresses }) {
    await db.query('refresh.clear_daily', sql`DELETE FROM address_daily WHERE chain = ${chain} AND address = ANY(${addresses}::text[])`);
  },
};

export const addressHeatmap: Rollup<Slots> = {
  name: 'address_heatmap',
  part: 'addresses',
  tables: ['address_heatmap'],
  deltas: heatmapReducer,
  deltaTables: [
    {
      name: 'delta_heatmap',
      columns: 'address text, day_of_week smallint, hour_of_day smallint, tx_in int, tx_out int, tx_total int',
      rows: (acc) => nestedRowsOf(acc.byAddress, (address, slot, h) => [address, Math.floor(slot / 24), slot % 24, h.txIn, h.txOut, h.txTotal]),
      direct: 'address_heatmap',
    },
  ],
  async apply(db, { chain, fresh }) {
    if (fresh.has('address_heatmap')) return; // copied straight in
    await db.query(
      'rollups.heatmap.apply',
      sql`INSERT INTO address_heatmap AS h (chain, address, day_of_week, hour_of_day, tx_in, tx_out, tx_total)
          SELECT ${chain}, address, day_of_week, hour_of_day, tx_in, tx_out, tx_total FROM delta_heatmap
          ORDER BY address, day_of_week, hour_of_day
          ON CONFLICT (chain, address, day_of_week, hour_of_day) DO UPDATE SET
            tx_in = h.tx_in + excluded.tx_in, tx_out = h.tx_out + excluded.tx_out, tx_total = h.tx_total + excluded.tx_total`,
    );
  },
  async revert(db, { chain }) {
    await db.query(
      'rollups.heatmap.revert',
      sql`UPDATE address_heatmap h SET tx_in = h.tx_in - d.tx_in, tx_out = h.tx_out - d.tx_out, tx_total = h.tx_total - d.tx_total
          FROM delta_heatmap d
          WHERE h.chain = ${chain} AND h.address = d.address AND h.day_of_week = d.day_of_week AND h.hour_of_day = d.hour_of_day`,
    );
    await db.query(
      'rollups.heatmap.remove_empty',
      sql`DELETE FROM address_heatmap h USING delta_heatmap d
          WHERE h.chain = ${chain} AND h.address = d.address AND h.day_of_week = d.day_of_week AND h.hour_of_day = d.hour_of_day
            AND h.tx_total = 0`,
    );
  },
  async clearTouched(db, chain, { addresses }) {
    await db.query('refresh.clear_heatmap', sql`DELETE FROM address_heatmap WHERE chain = ${chain} AND address = ANY(${addresses}::text[])`);
  },
};
