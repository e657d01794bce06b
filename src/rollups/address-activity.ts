/**
 * Per-address activity rollups: address_daily (value and logical transactions per UTC day) and
 * address_heatmap (logical transactions per UTC weekday and hour), merged from delta_daily and
 * delta_heatmap. Both are sums: revert subtracts and drops rows that fall to zero.
 */
import sql, { empty } from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';

/**
 * Merges delta_daily and delta_heatmap. A table that held no row of the chain (`fresh`) takes the
 * deltas as they are: the heatmap's were copied into it already (delta-tables.ts), and the daily
 * rows are inserted without looking for conflicts.
 */
export async function applyAddressActivity(db: Db, chain: ChainId, fresh: { daily: boolean; heatmap: boolean }): Promise<void> {
  await db.query(
    'rollups.daily.apply',
    sql`INSERT INTO address_daily AS a (chain, address, day, received, sent, fees, fees_burned, gas_used, tx_in, tx_out, tx_count, user_tx_count)
        SELECT ${chain}, address, day, received, sent, fees, fees_burned, gas_used, tx_in, tx_out, tx_count, user_tx_count FROM delta_daily
        ${fresh.daily ? empty : mergeDaily}`,
  );
  if (fresh.heatmap) return;
  await db.query(
    'rollups.heatmap.apply',
    sql`INSERT INTO address_heatmap AS h (chain, address, day_of_week, hour_of_day, tx_in, tx_out, tx_total)
        SELECT ${chain}, address, day_of_week, hour_of_day, tx_in, tx_out, tx_total FROM delta_heatmap
        ORDER BY address, day_of_week, hour_of_day
        ON CONFLICT (chain, address, day_of_week, hour_of_day) DO UPDATE SET
          tx_in = h.tx_in + excluded.tx_in, tx_out = h.tx_out + excluded.tx_out, tx_total = h.tx_total + excluded.tx_total`,
  );
}

// The merge into rows already there: the sums add.
const mergeDaily = sql`ORDER BY address, day
        ON CONFLICT (chain, address, day) DO UPDATE SET
          received = a.received + excluded.received, sent = a.sent + excluded.sent, fees = a.fees + excluded.fees,
          fees_burned = a.fees_burned + excluded.fees_burned, gas_used = a.gas_used + excluded.gas_used,
          tx_in = a.tx_in + excluded.tx_in, tx_out = a.tx_out + excluded.tx_out, tx_count = a.tx_count + excluded.tx_count,
          user_tx_count = a.user_tx_count + excluded.user_tx_count`;

export async function revertAddressActivity(db: Db, chain: ChainId): Promise<void> {
  await db.query(
    'rollups.daily.revert',
    sql`UPDATE address_daily a SET
          received = a.received - d.received, sent = a.sent - d.sent, fees = a.fees - d.fees,
          fees_burned = a.fees_burned - d.fees_burned, gas_used = a.gas_used - d.gas_used,
          tx_in = a.tx_in - d.tx_in, tx_out = a.tx_out - d.tx_out, tx_count = a.tx_count - d.tx_count,
          user_tx_count = a.user_tx_count - d.user_tx_count
        FROM delta_daily d
        WHERE a.chain = ${chain} AND a.address = d.address AND a.day = d.day`,
  );
  await db.query(
    'rollups.daily.remove_empty',
    sql`DELETE FROM address_daily a USING delta_daily d
        WHERE a.chain = ${chain} AND a.address = d.address AND a.day = d.day
          AND a.tx_count = 0 AND a.received = 0 AND a.sent = 0 AND a.fees = 0`,
  );
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
}
