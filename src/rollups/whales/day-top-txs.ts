/**
 * chain_day_top_txs: per UTC day, the TOP_TXS_PER_DAY user transactions that moved the most native
 * value (the candidates of chain_day_largest: coinbase, admin transactions, mints and reverted
 * transactions excluded; value > 0), for /whales/biggest. The day's top K of all its transactions
 * is the top K of (the kept rows ∪ a batch's candidates), so a batch inserts its own top K per day
 * (those that beat a full day's K-th) and trims the days it leaves over K back to K. A revert recomputes the reverted blocks' days from the raw rows
 * that remain. Reads the batch's transactions from the raw rows (written before the rollups).
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import { NON_USER_TX_TYPES } from '../../chain/model.ts';
import type { Db } from '../../store/store.ts';
import type { Rollup } from '../engine/rollup.ts';

/** Rows kept per day: the largest `limit` /whales/biggest accepts. */
export const TOP_TXS_PER_DAY = 100;

/** `transactions t` rows that are candidates (docs/metrics.md, "Whales", /whales/biggest). */
const candidate = sql`t.value > 0 AND t.status IS DISTINCT FROM 0 AND NOT t.mints AND NOT (t.tx_type = ANY(${[...NON_USER_TX_TYPES]}::text[]))`;

/**
 * Inserts the top K per day of the candidates `where` selects, among the given days; returns the
 * days left holding more than K rows. With `beatKept` (blocks after every kept row) only the
 * candidates above a full day's K-th row go in: a later one with the same value ranks below it.
 */
async function insertTop(db: Db, label: string, chain: ChainId, days: readonly string[], where: Sql, options: { beatKept?: boolean } = {}): Promise<string[]> {
  const { beatKept = false } = options;
  // Each day's K-th kept value, looked up once per day rather than once per candidate.
  const floors = sql`floors AS MATERIALIZED (
        SELECT d.day, (SELECT k.value FROM chain_day_top_txs k WHERE k.chain = ${chain} AND k.day = d.day
                       ORDER BY k.value DESC, k.height, k.tx_index OFFSET ${TOP_TXS_PER_DAY - 1} LIMIT 1) AS value
        FROM unnest(${days}::date[]) AS d(day)),`;
  const over = await db.query<{ day: string }>(
    label,
    sql`WITH ${beatKept ? floors : sql``} inserted AS (
        INSERT INTO chain_day_top_txs (chain, day, height, tx_index, value, tx_hash, from_addr, to_addr, ts, tx_type)
        SELECT ${chain}, day, height, tx_index, value, tx_hash, from_addr, to_addr, ts, tx_type FROM (
          SELECT DATE '1970-01-01' + (t.ts / 86400)::int AS day, t.height, t.tx_index, t.value, t.tx_hash, t.from_addr,
                 coalesce(t.to_addr, t.contract_address) AS to_addr, t.ts, t.tx_type,
                 row_number() OVER (PARTITION BY t.ts / 86400 ORDER BY t.value DESC, t.height, t.tx_index) AS r
          FROM transactions t
          WHERE t.chain = ${chain} AND ${where} AND ${candidate}
        ) x
        WHERE x.r <= ${TOP_TXS_PER_DAY} AND x.day = ANY(${days}::date[])
          ${beatKept ? sql`AND x.value > coalesce((SELECT f.value FROM floors f WHERE f.day = x.day), -1)` : sql``}
        ON CONFLICT (chain, height, tx_index) DO NOTHING
        RETURNING day)
      -- The kept rows as the statement found them, plus those it inserted.
      SELECT day::text AS day FROM inserted i GROUP BY day
      HAVING count(*) + (SELECT count(*) FROM chain_day_top_txs k WHERE k.chain = ${chain} AND k.day = i.day) > ${TOP_TXS_PER_DAY}`,
  );
  return over.map((r) => r.day);
}

/** Keeps only the top K rows of each of `days`. */
async function trim(db: Db, chain: ChainId, days: readonly string[]): Promise<void> {
  await db.query(
    'rollups.day_top_txs.trim',
    sql`DELETE FROM chain_day_top_txs d USING (
          SELECT height, tx_index, row_number() OVER (PARTITION BY day ORDER BY value DESC, height, tx_index) AS r
          FROM chain_day_top_txs WHERE chain = ${chain} AND day = ANY(${days}::date[])
        ) x
        WHERE x.r > ${TOP_TXS_PER_DAY} AND d.chain = ${chain} AND d.height = x.height AND d.tx_index = x.tx_index`,
  );
}

export const dayTopTxs: Rollup = {
  name: 'chain_day_top_txs',
  part: 'whales-exchanges',
  tables: ['chain_day_top_txs'],
  keepsPlans: ['rollups.day_top_txs.apply'],
  async apply(db, step) {
    // A partial refresh keeps only its days: step.days holds exactly the days this step may write.
    const { chain, days } = step;
    if (days.length === 0) return;
    const over = await insertTop(db, 'rollups.day_top_txs.apply', chain, days, step.inBlocks('t'), { beatKept: true });
    if (over.length > 0) await trim(db, chain, over);
  },
  async repair(db, { chain, days: stepDays }) {
    // The reverted blocks' days, recomputed from what remains of them (their raw rows are gone).
    const days = [...stepDays].sort();
    if (days.length === 0) return;
    await db.query('rollups.day_top_txs.clear', sql`DELETE FROM chain_day_top_txs WHERE chain = ${chain} AND day = ANY(${days}::date[])`);
    const from = sql`(SELECT min(height) FROM blocks WHERE chain = ${chain} AND ts >= (${days[0]!}::date - DATE '1970-01-01')::bigint * 86400)`;
    const to = sql`(SELECT max(height) FROM blocks WHERE chain = ${chain} AND ts < (${days.at(-1)!}::date - DATE '1970-01-01' + 1)::bigint * 86400)`;
    await insertTop(db, 'rollups.day_top_txs.repair', chain, days, sql`t.height BETWEEN ${from} AND ${to}`);
  },
  async clearTouched(db, chain, { days }) {
    await db.query('refresh.clear_day_top_txs', sql`DELETE FROM chain_day_top_txs WHERE chain = ${chain} AND day = ANY(${days}::date[])`);
  },
};
