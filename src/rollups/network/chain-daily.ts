/**
 * chain_daily: per chain and UTC day, blocks, transactions, fees, burn, issuance, volume, gas, size
 * and block intervals; chain_stats: counters over the whole history and the address population.
 * Sums, except the day's largest block, which a revert recomputes.
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { dayName } from '../../time.ts';
import type { DeltaReducer, StepBlock, StepScope, StepTx } from '../engine/reducer.ts';
import { rowsOf } from '../engine/delta-tables.ts';
import type { Rollup } from '../engine/rollup.ts';

interface ChainDayDelta {
  blockCount: number;
  txCount: number;
  userTxCount: number;
  feeSum: bigint;
  burned: bigint;
  minted: bigint;
  volume: bigint;
  gasUsed: bigint;
  sizeSum: number;
  sizeMax: number;
  intervalSum: number;
  baseFeeSum: bigint;
}

/** The step's figures per day ('YYYY-MM-DD', of the kept days: StepScope.keepsDay) and its counts for chain_stats. */
interface ChainDays {
  scope: StepScope;
  days: Map<string, ChainDayDelta>;
  blocks: number;
  transactions: number;
  /** Logical (address, transaction) participations: the chain's address-tx touches. */
  participations: number;
}

function chainDayOf(acc: ChainDays, day: number): ChainDayDelta {
  const name = dayName(day);
  let c = acc.days.get(name);
  if (!c) {
    c = { blockCount: 0, txCount: 0, userTxCount: 0, feeSum: 0n, burned: 0n, minted: 0n, volume: 0n, gasUsed: 0n, sizeSum: 0, sizeMax: 0, intervalSum: 0, baseFeeSum: 0n };
    if (acc.scope.keepsDay(name)) acc.days.set(name, c);
  }
  return c;
}

/**
 * What a transaction mints (chain_daily.minted): a migration mint's value. Coinbase rewards count
 * with their block (blockMinted).
 */
export const txMinted = ({ tx, mints, ok }: StepTx): bigint => (mints && tx.type !== 'coinbase' && ok ? tx.value : 0n);

/**
 * What a block mints besides its transactions: its reward after genesis (the genesis block's is
 * part of the genesis supply instead: `genesisSupply` in rollups/supply/supply.ts) and its withdrawals.
 */
export function blockMinted({ block, height }: StepBlock): bigint {
  let minted = height > 0 ? block.reward : 0n;
  for (const w of block.withdrawals) minted += w.amount;
  return minted;
}

/** Per day: blocks, transactions, fees, burn, issuance, volume, gas, size and block intervals. */
const chainDaysReducer: DeltaReducer<ChainDays> = {
  start: (scope) => ({ scope, days: new Map(), blocks: 0, transactions: 0, participations: 0 }),
  tx(acc, t) {
    const { tx, day, user, sent, participants } = t;
    acc.transactions++;
    acc.participations += participants.size;
    const c = chainDayOf(acc, day);
    c.txCount++;
    if (user) c.userTxCount++;
    c.feeSum += tx.fee;
    c.burned += tx.burned;
    c.volume += sent;
    c.minted += txMinted(t);
  },
  block(acc, b) {
    const { block, ts, day, previousTs } = b;
    acc.blocks++;
    const c = chainDayOf(acc, day);
    c.blockCount++;
    c.sizeSum += block.size;
    c.sizeMax = Math.max(c.sizeMax, block.size);
    c.intervalSum += previousTs === null ? 0 : ts - previousTs;
    c.gasUsed += BigInt(block.gasUsed ?? 0);
    c.baseFeeSum += block.baseFeePerGas ?? 0n;
    c.minted += blockMinted(b);
  },
};

async function applyChainDaily(db: Db, chain: ChainId, deltas: ChainDays, newAddresses: number, options: { stats: boolean } = { stats: true }): Promise<void> {
  // The counters in the same statement: one round trip.
  await db.query(
    'rollups.chain_daily.apply',
    sql`${options.stats ? sql`WITH stats AS (${chainStatsUpsert(chain, deltas, 1, newAddresses)})` : sql``}
        INSERT INTO chain_daily AS c (chain, day, block_count, tx_count, user_tx_count, fee_sum, burned, minted, volume,
                                      gas_used, size_sum, size_max, interval_sum, base_fee_sum)
        SELECT ${chain}, day, block_count, tx_count, user_tx_count, fee_sum, burned, minted, volume,
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

async function revertChainDaily(db: Db, chain: ChainId, deltas: ChainDays): Promise<void> {
  await db.query(
    'rollups.chain_daily.revert',
    sql`UPDATE chain_daily c SET
          block_count = c.block_count - d.block_count, tx_count = c.tx_count - d.tx_count,
          user_tx_count = c.user_tx_count - d.user_tx_count, fee_sum = c.fee_sum - d.fee_sum, burned = c.burned - d.burned,
          minted = c.minted - d.minted, volume = c.volume - d.volume, gas_used = c.gas_used - d.gas_used,
          size_sum = c.size_sum - d.size_sum, interval_sum = c.interval_sum - d.interval_sum,
          base_fee_sum = c.base_fee_sum - d.base_fee_sum
        FROM delta_chain_daily d
        WHERE c.chain = ${chain} AND c.day = d.day`,
  );
  await db.query('rollups.chain_stats', chainStatsUpsert(chain, deltas, -1, 0));
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
function chainStatsUpsert(chain: ChainId, deltas: ChainDays, sign: 1 | -1, newAddresses: number): Sql {
  return sql`INSERT INTO chain_stats AS s (chain, address_count, address_tx_touches, block_count, tx_count)
             VALUES (${chain}, ${newAddresses}, ${sign * deltas.participations}, ${sign * deltas.blocks}, ${sign * deltas.transactions})
             ON CONFLICT (chain) DO UPDATE SET
               address_count = s.address_count + excluded.address_count,
               address_tx_touches = s.address_tx_touches + excluded.address_tx_touches,
               block_count = s.block_count + excluded.block_count,
               tx_count = s.tx_count + excluded.tx_count`;
}

export const chainDaily: Rollup<ChainDays> = {
  name: 'chain_daily',
  part: 'network',
  tables: ['chain_daily', 'chain_stats'],
  deltas: chainDaysReducer,
  // address_summary counts the new addresses (and the removed ones, in its repair).
  after: ['address_summary'],
  deltaTables: [
    {
      name: 'delta_chain_daily',
      columns: `day date, block_count int, tx_count int, user_tx_count int, fee_sum numeric, burned numeric, minted numeric,
        volume numeric, gas_used numeric, size_sum bigint, size_max int, interval_sum bigint, base_fee_sum numeric`,
      rows: (acc) => rowsOf(acc.days, (day, c) => [
        day, c.blockCount, c.txCount, c.userTxCount, c.feeSum, c.burned, c.minted, c.volume, c.gasUsed, c.sizeSum, c.sizeMax, c.intervalSum, c.baseFeeSum,
      ]),
    },
  ],
  apply: (db, step) => applyChainDaily(db, step.chain, step.deltas, step.newAddresses, { stats: !step.partial }),
  revert: (db, step) => revertChainDaily(db, step.chain, step.deltas),
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
