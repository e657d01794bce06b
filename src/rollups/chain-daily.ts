/**
 * chain_daily: per chain and UTC day, blocks, transactions, fees, burn, issuance, volume, gas, size
 * and block intervals; chain_stats: counters over the whole history and the address population.
 * Sums, except the day's largest block, which a revert recomputes.
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';
import type { RollupDeltas } from './engine/deltas.ts';
import { rowsOf } from './engine/delta-tables.ts';
import type { Rollup } from './engine/rollup.ts';

async function applyChainDaily(db: Db, deltas: RollupDeltas, newAddresses: number, options: { stats: boolean } = { stats: true }): Promise<void> {
  // The counters in the same statement: one round trip.
  await db.query(
    'rollups.chain_daily.apply',
    sql`${options.stats ? sql`WITH stats AS (${chainStatsUpsert(deltas, 1, newAddresses)})` : sql``}
        INSERT INTO chain_daily AS c (chain, day, block_count, tx_count, user_tx_count, fee_sum, burned, minted, volume,
                                      gas_used, size_sum, size_max, interval_sum, base_fee_sum)
        SELECT ${deltas.chain}, day, block_count, tx_count, user_tx_count, fee_sum, burned, minted, volume,
               gas_used, size_sum, size_max, interval_sum, base_fee_sum FROM delta_chain_daily
        ON CONFLICT (chain, day) DO UPDATE SET
          block_count = c.block_count + excluded.block_count, tx_count = c.tx_count + excluded.tx_count,
          user_tx_count = c.user_tx_count + excluded.user_tx_count, fee_sum = c.fee_sum + excluded.fee_sum,
          burned = c.burned + excluded.burned, minted = c.minted + excluded.minted, volume = c.volume + excluded.volume,
          gas_used = c.gas_used + excluded.gas_used, size_sum = c.size_sum + excluded.size_sum,
          size_max = greatest(c.size_max, excluded.size_max), interval_sum = c.interval_sum + excluded.interval_sum,
          base_fee_sum = c.base_fee_sum + excluded.base_fee_sum`,
  );
}

/** chain_stats of `chain` counted afresh from the rollups and raw rows. */
async function recomputeChainStats(db: Db, chain: ChainId): Promise<void> {
  await db.query(
    'rollups.chain_stats.recompute',
    sql`INSERT INTO chain_stats AS s (chain, address_count, address_tx_touches, block_count, tx_count)
        SELECT ${chain},
               (SELECT count(*) FROM address_summary WHERE chain = ${chain}),
               (SELECT coalesce(sum(tx_count), 0) FROM address_summary WHERE chain = ${chain}),
               (SELECT count(*) FROM blocks WHERE chain = ${chain}),
               (SELECT count(*) FROM transactions WHERE chain = ${chain})
        ON CONFLICT (chain) DO UPDATE SET address_count = excluded.address_count, address_tx_touches = excluded.address_tx_touches,
          block_count = excluded.block_count, tx_count = excluded.tx_count`,
  );
}

async function revertChainDaily(db: Db, deltas: RollupDeltas): Promise<void> {
  await db.query(
    'rollups.chain_daily.revert',
    sql`UPDATE chain_daily c SET
          block_count = c.block_count - d.block_count, tx_count = c.tx_count - d.tx_count,
          user_tx_count = c.user_tx_count - d.user_tx_count, fee_sum = c.fee_sum - d.fee_sum, burned = c.burned - d.burned,
          minted = c.minted - d.minted, volume = c.volume - d.volume, gas_used = c.gas_used - d.gas_used,
          size_sum = c.size_sum - d.size_sum, interval_sum = c.interval_sum - d.interval_sum,
          base_fee_sum = c.base_fee_sum - d.base_fee_sum
        FROM delta_chain_daily d
        WHERE c.chain = ${deltas.chain} AND c.day = d.day`,
  );
  await db.query('rollups.chain_stats', chainStatsUpsert(deltas, -1, 0));
}

/** After the reverted raw rows are deleted: the largest block of each touched day, empty days removed. */
async function repairChainDaily(db: Db, chain: ChainId, removedAddresses: number): Promise<void> {
  await db.query(
    'rollups.chain_daily.repair_size_max',
    sql`UPDATE chain_daily c SET size_max = coalesce((
          SELECT max(size) FROM blocks b WHERE b.chain = c.chain AND b.ts >= (c.day - DATE '1970-01-01')::bigint * 86400
            AND b.ts < (c.day - DATE '1970-01-01' + 1)::bigint * 86400), 0)
        FROM delta_chain_daily d WHERE c.chain = ${chain} AND c.day = d.day`,
  );
  await db.query(
    'rollups.chain_daily.remove_empty',
    sql`DELETE FROM chain_daily c USING delta_chain_daily d
        WHERE c.chain = ${chain} AND c.day = d.day AND c.block_count = 0 AND c.tx_count = 0 AND c.holders_delta = 0`,
  );
  await db.query('rollups.chain_stats.removed', sql`UPDATE chain_stats SET address_count = address_count - ${removedAddresses} WHERE chain = ${chain}`);
}

/** Adds the batch's counts (sign 1) or takes them out (-1) of chain_stats. */
function chainStatsUpsert(deltas: RollupDeltas, sign: 1 | -1, newAddresses: number): Sql {
  return sql`INSERT INTO chain_stats AS s (chain, address_count, address_tx_touches, block_count, tx_count)
             VALUES (${deltas.chain}, ${newAddresses}, ${sign * deltas.participations}, ${sign * deltas.blocks}, ${sign * deltas.transactions})
             ON CONFLICT (chain) DO UPDATE SET
               address_count = s.address_count + excluded.address_count,
               address_tx_touches = s.address_tx_touches + excluded.address_tx_touches,
               block_count = s.block_count + excluded.block_count,
               tx_count = s.tx_count + excluded.tx_count`;
}

export const chainDaily: Rollup = {
  name: 'chain_daily',
  part: 'network',
  tables: ['chain_daily', 'chain_stats'],
  deltaTables: [
    {
      name: 'delta_chain_daily',
      columns: `day date, block_count int, tx_count int, user_tx_count int, fee_sum numeric, burned numeric, minted numeric,
        volume numeric, gas_used numeric, size_sum bigint, size_max int, interval_sum bigint, base_fee_sum numeric`,
      rows: (deltas) => rowsOf(deltas.chainDaily, (day, c) => [
        day, c.blockCount, c.txCount, c.userTxCount, c.feeSum, c.burned, c.minted, c.volume, c.gasUsed, c.sizeSum, c.sizeMax, c.intervalSum, c.baseFeeSum,
      ]),
    },
  ],
  // After address_summary (listed before it), which counts the new addresses.
  apply: (db, step) => applyChainDaily(db, step.deltas, step.newAddresses, { stats: !step.partial }),
  revert: (db, step) => revertChainDaily(db, step.deltas),
  repair: (db, step) => repairChainDaily(db, step.chain, step.removedAddresses),
  async clearTouched(db, chain, { days }) {
    // Holder transitions are recomputed for every day after a partial refresh: keep those, zero the sums.
    await db.query(
      'refresh.clear_days',
      sql`UPDATE chain_daily SET block_count = 0, tx_count = 0, user_tx_count = 0, fee_sum = 0, burned = 0, minted = 0, volume = 0,
            gas_used = 0, size_sum = 0, size_max = 0, interval_sum = 0, base_fee_sum = 0
          WHERE chain = ${chain} AND day = ANY(${days}::date[])`,
    );
  },
  async afterRefresh(db, chain, partial) {
    if (partial) await recomputeChainStats(db, chain);
  },
};
