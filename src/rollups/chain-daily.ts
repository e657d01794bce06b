/**
 * chain_daily: per chain and UTC day, blocks, transactions, fees, burn, issuance, volume, gas, size
 * and block intervals; chain_stats: the same counters over the whole history, plus the address
 * population. Sums, except the day's largest block, which a revert recomputes.
 */
import sql from 'sql-template-tag';
import type { Db } from '../store/store.ts';
import { formatDay } from '../api/format.ts';
import { dayOf, type Scope } from './scope.ts';

function dailyDelta(scope: Scope) {
  const { chain, fromHeight: from, toHeight: to } = scope;
  return sql`
    WITH b AS (
      SELECT height, ts, size, reward, withdrawals_total, fees, burned, coalesce(gas_used, 0) AS gas_used,
             coalesce(base_fee_per_gas, 0) AS base_fee,
             ts - coalesce(lag(ts) OVER (ORDER BY height),
                           (SELECT p.ts FROM blocks p WHERE p.chain = ${chain} AND p.height = ${from} - 1), ts) AS interval
      FROM blocks WHERE chain = ${chain} AND height BETWEEN ${from} AND ${to}
    ),
    blocks_by_day AS (
      SELECT ${dayOf('ts')} AS day, count(*)::int AS block_count, sum(fees) AS fee_sum, sum(burned) AS burned,
             sum(reward + withdrawals_total) AS minted, sum(gas_used) AS gas_used, sum(size)::bigint AS size_sum,
             max(size)::int AS size_max, sum(interval)::bigint AS interval_sum, sum(base_fee) AS base_fee_sum
      FROM b GROUP BY 1
    ),
    txs_by_day AS (
      SELECT ${dayOf('ts')} AS day, count(*)::int AS tx_count,
             count(*) FILTER (WHERE tx_type <> 'coinbase')::int AS user_tx_count,
             sum(value) FILTER (WHERE status IS DISTINCT FROM 0) AS volume,
             sum(value) FILTER (WHERE mints AND tx_type <> 'coinbase' AND status IS DISTINCT FROM 0) AS migration_minted
      FROM transactions WHERE chain = ${chain} AND height BETWEEN ${from} AND ${to} GROUP BY 1
    )
    SELECT ${chain} AS chain, day, coalesce(bd.block_count, 0) AS block_count, coalesce(td.tx_count, 0) AS tx_count,
           coalesce(td.user_tx_count, 0) AS user_tx_count, coalesce(bd.fee_sum, 0) AS fee_sum, coalesce(bd.burned, 0) AS burned,
           coalesce(bd.minted, 0) + coalesce(td.migration_minted, 0) AS minted, coalesce(td.volume, 0) AS volume,
           coalesce(bd.gas_used, 0) AS gas_used, coalesce(bd.size_sum, 0) AS size_sum, coalesce(bd.size_max, 0) AS size_max,
           coalesce(bd.interval_sum, 0) AS interval_sum, coalesce(bd.base_fee_sum, 0) AS base_fee_sum
    FROM blocks_by_day bd FULL JOIN txs_by_day td USING (day)`;
}

export async function applyChainDaily(db: Db, scope: Scope, newAddresses: number): Promise<void> {
  await db.query(
    'rollups.chain_daily.apply',
    sql`INSERT INTO chain_daily AS c (chain, day, block_count, tx_count, user_tx_count, fee_sum, burned, minted, volume,
                                      gas_used, size_sum, size_max, interval_sum, base_fee_sum)
        ${dailyDelta(scope)}
        ON CONFLICT (chain, day) DO UPDATE SET
          block_count = c.block_count + excluded.block_count, tx_count = c.tx_count + excluded.tx_count,
          user_tx_count = c.user_tx_count + excluded.user_tx_count, fee_sum = c.fee_sum + excluded.fee_sum,
          burned = c.burned + excluded.burned, minted = c.minted + excluded.minted, volume = c.volume + excluded.volume,
          gas_used = c.gas_used + excluded.gas_used, size_sum = c.size_sum + excluded.size_sum,
          size_max = greatest(c.size_max, excluded.size_max), interval_sum = c.interval_sum + excluded.interval_sum,
          base_fee_sum = c.base_fee_sum + excluded.base_fee_sum`,
  );
  await updateChainStats(db, scope, 1, newAddresses);
}

export async function revertChainDaily(db: Db, scope: Scope): Promise<void> {
  await db.query(
    'rollups.chain_daily.revert',
    sql`UPDATE chain_daily c SET
          block_count = c.block_count - d.block_count, tx_count = c.tx_count - d.tx_count,
          user_tx_count = c.user_tx_count - d.user_tx_count, fee_sum = c.fee_sum - d.fee_sum, burned = c.burned - d.burned,
          minted = c.minted - d.minted, volume = c.volume - d.volume, gas_used = c.gas_used - d.gas_used,
          size_sum = c.size_sum - d.size_sum, interval_sum = c.interval_sum - d.interval_sum,
          base_fee_sum = c.base_fee_sum - d.base_fee_sum
        FROM (${dailyDelta(scope)}) d
        WHERE c.chain = d.chain AND c.day = d.day`,
  );
  await updateChainStats(db, scope, -1, 0);
}

/** After the raw rows are deleted: the largest block of each touched day, and days left empty removed. */
export async function repairChainDaily(db: Db, scope: Scope, firstRevertedTs: number, removedAddresses: number): Promise<void> {
  const { chain } = scope;
  await db.query(
    'rollups.chain_daily.repair_size_max',
    sql`UPDATE chain_daily c SET size_max = coalesce((
          SELECT max(size) FROM blocks b WHERE b.chain = c.chain AND b.ts >= (c.day - DATE '1970-01-01') * 86400
            AND b.ts < (c.day - DATE '1970-01-01' + 1) * 86400), 0)
        WHERE c.chain = ${chain} AND c.day >= ${formatDay(firstRevertedTs)}::date`,
  );
  await db.query(
    'rollups.chain_daily.remove_empty',
    sql`DELETE FROM chain_daily WHERE chain = ${chain} AND block_count = 0 AND tx_count = 0 AND holders_delta = 0`,
  );
  await db.query(
    'rollups.chain_stats.removed',
    sql`UPDATE chain_stats SET address_count = address_count - ${removedAddresses} WHERE chain = ${chain}`,
  );
}

async function updateChainStats(db: Db, scope: Scope, sign: 1 | -1, newAddresses: number): Promise<void> {
  const { chain, fromHeight: from, toHeight: to } = scope;
  await db.query(
    'rollups.chain_stats',
    sql`INSERT INTO chain_stats AS s (chain, address_count, address_tx_touches, block_count, tx_count)
        SELECT ${chain}, ${newAddresses},
               ${sign} * (SELECT count(*) FROM scope_participation),
               ${sign} * (SELECT count(*) FROM blocks WHERE chain = ${chain} AND height BETWEEN ${from} AND ${to}),
               ${sign} * (SELECT count(*) FROM transactions WHERE chain = ${chain} AND height BETWEEN ${from} AND ${to})
        ON CONFLICT (chain) DO UPDATE SET
          address_count = s.address_count + excluded.address_count,
          address_tx_touches = s.address_tx_touches + excluded.address_tx_touches,
          block_count = s.block_count + excluded.block_count,
          tx_count = s.tx_count + excluded.tx_count`,
  );
}
