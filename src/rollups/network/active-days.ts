/**
 * Active days of addresses (docs/metrics.md, "Active addresses"): address_user_days keeps each
 * address's first and latest day with a user transaction, and chain_active_gaps counts, per day,
 * the addresses active that day by the days since their previous active day (0 = never active
 * before; 31 = 31 or more). From those counts DAU, WAU, MAU and new wallets of any day are exact
 * sums over at most 30 days of rows (charts/network/active-addresses.ts), the open day included.
 *
 * Blocks arrive in order, so a batch only adds active days after an address's latest one; a revert
 * only removes an address's latest days. The gap of a removed day is found the same way it was
 * added: from the previous active day, among those that remain and those removed with it.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { DAILY_AFTER, DAILY_DELTAS } from '../addresses/address-activity.ts';
import type { Rollup } from '../engine/rollup.ts';

const MAX_GAP = 31;

export const activeDays: Rollup = {
  name: 'active_days',
  part: 'network',
  tables: ['address_user_days', 'chain_active_gaps'],
  after: ['address_daily'],
  reads: [DAILY_DELTAS, DAILY_AFTER],
  // Reads the batch's user days from address_daily's deltas, and its rows as the batch left them. One
  // statement: the gaps are counted from address_user_days as it was before it (its snapshot),
  // read once per address; only the addresses whose first or latest day moves are written (most of
  // a followed block's addresses were already active that day: an upsert would lock their rows
  // for nothing).
  //
  // A day the address was already active on before the batch changes nothing (it is its latest day,
  // and counted): only the batch's newly active days are read, those whose row in daily_after holds
  // just the batch's user transactions (every day, when address_daily had no row of the chain).
  async apply(db, { chain, fresh, rowsOf }) {
    // A first load's rows go in in the key's order: each at the end of the key's index rather than on a page of its own.
    const inKeyOrder = fresh.has('address_daily') ? sql`ORDER BY address` : sql``;
    const newlyActive = fresh.has('address_daily') ? sql`` : sql`JOIN ${rowsOf(DAILY_AFTER)} a ON a.address = d.address AND a.day = d.day AND a.user_tx_count = d.user_tx_count`;
    await db.query(
      'rollups.active_days.apply',
      sql`WITH days AS MATERIALIZED (
            SELECT d.address, d.day, u.first_day AS was_first, u.last_day AS was_last
            FROM ${rowsOf(DAILY_DELTAS)} d
            ${newlyActive}
            LEFT JOIN address_user_days u ON u.chain = ${chain} AND u.address = d.address
            WHERE d.user_tx_count > 0),
          gaps AS (
            INSERT INTO chain_active_gaps AS g (chain, day, gap, addresses)
            SELECT ${chain}, day, CASE WHEN prev IS NULL THEN 0 ELSE least(day - prev, ${MAX_GAP}) END, count(*)
            FROM (SELECT address, day, coalesce(lag(day) OVER (PARTITION BY address ORDER BY day), was_last) AS prev FROM days) d
            WHERE prev IS NULL OR prev < day
            GROUP BY 2, 3
            ON CONFLICT (chain, day, gap) DO UPDATE SET addresses = g.addresses + excluded.addresses)
          INSERT INTO address_user_days AS u (chain, address, first_day, last_day)
          SELECT ${chain}, address, min(day), max(day) FROM days
          GROUP BY address
          HAVING max(was_last) IS NULL OR max(was_last) < max(day) OR min(was_first) > min(day)
          ${inKeyOrder}
          ON CONFLICT (chain, address) DO UPDATE SET first_day = least(u.first_day, excluded.first_day), last_day = greatest(u.last_day, excluded.last_day)`,
    );
  },
  // address_daily has been reverted by now: a delta day with user activity that no longer has any was removed.
  async repair(db, { chain, rowsOf }) {
    await db.query('rollups.active_days.removed_drop', sql`DROP TABLE IF EXISTS removed_days`);
    await db.query(
      'rollups.active_days.removed',
      sql`CREATE TEMP TABLE removed_days ON COMMIT DROP AS
          SELECT d.address, d.day FROM ${rowsOf(DAILY_DELTAS)} d
          LEFT JOIN address_daily a ON a.chain = ${chain} AND a.address = d.address AND a.day = d.day
          WHERE d.user_tx_count > 0 AND coalesce(a.user_tx_count, 0) = 0`,
    );
    await db.query(
      'rollups.active_days.ungap',
      sql`WITH kept AS (
            SELECT r.address, (SELECT max(a.day) FROM address_daily a
                               WHERE a.chain = ${chain} AND a.address = r.address AND a.user_tx_count > 0 AND a.day < min(r.day)) AS last_kept
            FROM removed_days r GROUP BY r.address
          ),
          gaps AS (
            SELECT r.day, CASE WHEN prev IS NULL THEN 0 ELSE least(r.day - prev, ${MAX_GAP}) END AS gap, count(*) AS n
            FROM (
              SELECT r.day, coalesce(lag(r.day) OVER (PARTITION BY r.address ORDER BY r.day), k.last_kept) AS prev
              FROM removed_days r JOIN kept k USING (address)
            ) r
            GROUP BY 1, 2
          )
          UPDATE chain_active_gaps g SET addresses = g.addresses - gaps.n
          FROM gaps WHERE g.chain = ${chain} AND g.day = gaps.day AND g.gap = gaps.gap`,
    );
    await db.query('rollups.active_days.remove_empty', sql`DELETE FROM chain_active_gaps WHERE chain = ${chain} AND addresses = 0`);
    await db.query(
      'rollups.active_days.repair',
      sql`WITH touched AS (SELECT DISTINCT address FROM removed_days),
          remaining AS (
            SELECT t.address, min(a.day) AS first_day, max(a.day) AS last_day FROM touched t
            LEFT JOIN address_daily a ON a.chain = ${chain} AND a.address = t.address AND a.user_tx_count > 0
            GROUP BY t.address
          ),
          gone AS (DELETE FROM address_user_days u USING remaining r WHERE u.chain = ${chain} AND u.address = r.address AND r.last_day IS NULL)
          UPDATE address_user_days u SET first_day = r.first_day, last_day = r.last_day
          FROM remaining r WHERE u.chain = ${chain} AND u.address = r.address AND r.last_day IS NOT NULL`,
    );
  },
  async afterRefresh(db, chain, partial) {
    // A partial replay rebuilds some addresses' days out of order: count every address again.
    if (partial) await rebuildActiveDays(db, chain);
  },
};

/** Both tables of `chain` counted afresh from address_daily. */
async function rebuildActiveDays(db: Db, chain: ChainId): Promise<void> {
  await db.query('rollups.active_days.clear_users', sql`DELETE FROM address_user_days WHERE chain = ${chain}`);
  await db.query('rollups.active_days.clear_gaps', sql`DELETE FROM chain_active_gaps WHERE chain = ${chain}`);
  await db.query(
    'rollups.active_days.rebuild_users',
    sql`INSERT INTO address_user_days (chain, address, first_day, last_day)
        SELECT ${chain}, address, min(day), max(day) FROM address_daily WHERE chain = ${chain} AND user_tx_count > 0 GROUP BY address`,
  );
  await db.query(
    'rollups.active_days.rebuild_gaps',
    sql`INSERT INTO chain_active_gaps (chain, day, gap, addresses)
        SELECT ${chain}, day, CASE WHEN prev IS NULL THEN 0 ELSE least(day - prev, ${MAX_GAP}) END, count(*)
        FROM (SELECT day, lag(day) OVER (PARTITION BY address ORDER BY day) AS prev FROM address_daily WHERE chain = ${chain} AND user_tx_count > 0) d
        GROUP BY 2, 3`,
  );
}
