/**
 * Per-address activity rollups: address_daily (value and logical transactions per UTC day) and
 * address_heatmap (logical transactions per UTC weekday and hour). Both are sums, so revert
 * subtracts exactly what apply added and drops rows that fall to zero.
 */
import sql from 'sql-template-tag';
import type { Db } from '../store/store.ts';
import { dayOf, type Scope } from './scope.ts';

function dailyDelta(scope: Scope) {
  return sql`
    WITH value AS (
      SELECT address, ${dayOf('ts')} AS day, sum(received) AS received, sum(debit) AS sent, sum(fee) AS fees,
             sum(burned) AS fees_burned, sum(gas_used) AS gas_used
      FROM scope_ledger GROUP BY 1, 2
    ),
    txs AS (
      SELECT address, ${dayOf('ts')} AS day, count(*) FILTER (WHERE is_in) AS tx_in, count(*) FILTER (WHERE is_out) AS tx_out,
             count(*) AS tx_count, count(*) FILTER (WHERE is_user) AS user_tx_count
      FROM scope_participation GROUP BY 1, 2
    )
    SELECT ${scope.chain} AS chain, address, day,
           coalesce(v.received, 0) AS received, coalesce(v.sent, 0) AS sent, coalesce(v.fees, 0) AS fees,
           coalesce(v.fees_burned, 0) AS fees_burned, coalesce(v.gas_used, 0)::bigint AS gas_used,
           coalesce(t.tx_in, 0)::int AS tx_in, coalesce(t.tx_out, 0)::int AS tx_out,
           coalesce(t.tx_count, 0)::int AS tx_count, coalesce(t.user_tx_count, 0)::int AS user_tx_count
    FROM value v FULL JOIN txs t USING (address, day)`;
}

function heatmapDelta(scope: Scope) {
  return sql`
    SELECT ${scope.chain} AS chain, address, (((ts / 86400) + 3) % 7)::smallint AS day_of_week,
           ((ts % 86400) / 3600)::smallint AS hour_of_day,
           count(*) FILTER (WHERE is_in)::int AS tx_in, count(*) FILTER (WHERE is_out)::int AS tx_out, count(*)::int AS tx_total
    FROM scope_participation GROUP BY address, 3, 4`;
}

export async function applyAddressActivity(db: Db, scope: Scope): Promise<void> {
  await db.query(
    'rollups.daily.apply',
    sql`INSERT INTO address_daily AS a (chain, address, day, received, sent, fees, fees_burned, gas_used, tx_in, tx_out, tx_count, user_tx_count)
        ${dailyDelta(scope)}
        ON CONFLICT (chain, address, day) DO UPDATE SET
          received = a.received + excluded.received, sent = a.sent + excluded.sent, fees = a.fees + excluded.fees,
          fees_burned = a.fees_burned + excluded.fees_burned, gas_used = a.gas_used + excluded.gas_used,
          tx_in = a.tx_in + excluded.tx_in, tx_out = a.tx_out + excluded.tx_out, tx_count = a.tx_count + excluded.tx_count,
          user_tx_count = a.user_tx_count + excluded.user_tx_count`,
  );
  await db.query(
    'rollups.heatmap.apply',
    sql`INSERT INTO address_heatmap AS h (chain, address, day_of_week, hour_of_day, tx_in, tx_out, tx_total)
        ${heatmapDelta(scope)}
        ON CONFLICT (chain, address, day_of_week, hour_of_day) DO UPDATE SET
          tx_in = h.tx_in + excluded.tx_in, tx_out = h.tx_out + excluded.tx_out, tx_total = h.tx_total + excluded.tx_total`,
  );
}

export async function revertAddressActivity(db: Db, scope: Scope): Promise<void> {
  await db.query(
    'rollups.daily.revert',
    sql`UPDATE address_daily a SET
          received = a.received - d.received, sent = a.sent - d.sent, fees = a.fees - d.fees,
          fees_burned = a.fees_burned - d.fees_burned, gas_used = a.gas_used - d.gas_used,
          tx_in = a.tx_in - d.tx_in, tx_out = a.tx_out - d.tx_out, tx_count = a.tx_count - d.tx_count,
          user_tx_count = a.user_tx_count - d.user_tx_count
        FROM (${dailyDelta(scope)}) d
        WHERE a.chain = d.chain AND a.address = d.address AND a.day = d.day`,
  );
  await db.query(
    'rollups.daily.remove_empty',
    sql`DELETE FROM address_daily a USING (SELECT DISTINCT address, ${dayOf('ts')} AS day FROM scope_ledger
                                           UNION SELECT DISTINCT address, ${dayOf('ts')} FROM scope_participation) d
        WHERE a.chain = ${scope.chain} AND a.address = d.address AND a.day = d.day
          AND a.tx_count = 0 AND a.received = 0 AND a.sent = 0 AND a.fees = 0`,
  );
  await db.query(
    'rollups.heatmap.revert',
    sql`UPDATE address_heatmap h SET tx_in = h.tx_in - d.tx_in, tx_out = h.tx_out - d.tx_out, tx_total = h.tx_total - d.tx_total
        FROM (${heatmapDelta(scope)}) d
        WHERE h.chain = d.chain AND h.address = d.address AND h.day_of_week = d.day_of_week AND h.hour_of_day = d.hour_of_day`,
  );
  await db.query(
    'rollups.heatmap.remove_empty',
    sql`DELETE FROM address_heatmap h USING (SELECT DISTINCT address FROM scope_participation) d
        WHERE h.chain = ${scope.chain} AND h.address = d.address AND h.tx_total = 0`,
  );
}
