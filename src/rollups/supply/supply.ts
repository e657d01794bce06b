/**
 * Supply figures (docs/metrics.md, "Supply"): chain_migration_daily keeps, per chain and UTC day,
 * the successful migration legs (burns, mints); chain_supply_totals keeps, per chain, the totals of
 * the whole history (genesis supply, minted, fee burn, migration legs), so that a window's
 * "before" figure is one row less the window's days. Legs come from the batch's migration_legs rows
 * (written before, and deleted after, the rollups run); minted and burn from the batch's deltas.
 */
import sql, { type Sql } from 'sql-template-tag';
import { SENTINELS, type ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { blockMinted, txMinted } from '../network/chain-daily.ts';
import type { DeltaReducer } from '../engine/reducer.ts';
import type { Rollup, RollupStep } from '../engine/rollup.ts';

/** What the step's blocks minted and burned (as chain_daily counts them: rollups/network/chain-daily.ts). */
interface Issuance {
  minted: bigint;
  burned: bigint;
}

const issuance: DeltaReducer<Issuance> = {
  start: () => ({ minted: 0n, burned: 0n }),
  tx(acc, t) {
    acc.minted += txMinted(t);
    acc.burned += t.tx.burned;
  },
  block(acc, b) {
    acc.minted += blockMinted(b);
  },
};

/**
 * The coins a chain has from its genesis block, as a scalar SQL expression: the genesis block's
 * allocations to real addresses plus its block reward (on pow the premine its coinbase pays). A
 * sentinel's allocation is not supply: on pow it is the zero address's reserve, out of which every
 * block's reward is paid (docs/indexing-pow.md, "Genesis"). The one definition every supply figure
 * (totals, timeline, staking supply) starts from.
 */
export function genesisSupply(chain: ChainId): Sql {
  return sql`((SELECT coalesce(sum(amount), 0) FROM genesis_allocations WHERE chain = ${chain} AND address <> ALL(${[...SENTINELS[chain]]}::text[]))
              + (SELECT coalesce(sum(reward), 0) FROM blocks WHERE chain = ${chain} AND height = 0))`;
}

interface LegDay {
  day: string;
  burned: string;
  burn_legs: number;
  minted: string;
  mint_legs: number;
}

/**
 * The successful legs of the raw rows between two heights, per UTC day. Each leg's transaction is
 * looked up by its key (a subquery per leg, which the planner cannot turn into a scan of the
 * chain's transactions): a step has a few legs at most, and while a chain loads in bulk its
 * statistics say nothing of the rows being written. No transaction: no leg, as in a join.
 */
function legsOf(chain: ChainId, fromHeight: number, toHeight: number) {
  return sql`SELECT (DATE '1970-01-01' + (l.ts / 86400)::int)::text AS day,
                    coalesce(sum(l.amount) FILTER (WHERE l.role = 'burn'), 0)::text AS burned, count(*) FILTER (WHERE l.role = 'burn')::int AS burn_legs,
                    coalesce(sum(l.amount) FILTER (WHERE l.role = 'mint'), 0)::text AS minted, count(*) FILTER (WHERE l.role = 'mint')::int AS mint_legs
             FROM migration_legs l
             WHERE l.chain = ${chain} AND l.height BETWEEN ${fromHeight} AND ${toHeight}
               AND (SELECT t.status IS DISTINCT FROM 0 FROM transactions t WHERE t.chain = l.chain AND t.height = l.height AND t.tx_index = l.tx_index)
             GROUP BY 1`;
}

/** Adds (sign 1) or subtracts (-1) the step's blocks. */
async function merge(db: Db, step: RollupStep<Issuance>, sign: 1 | -1): Promise<void> {
  const { chain, deltas } = step;
  const legs = await db.query<LegDay>('rollups.supply.legs', legsOf(chain, step.fromHeight, step.toHeight));
  const s = BigInt(sign);
  if (legs.length > 0) {
    await db.query(
      'rollups.supply.migration_daily',
      sql`INSERT INTO chain_migration_daily AS m (chain, day, burned, burn_legs, minted, mint_legs)
          SELECT ${chain}, day, ${sign}::int * burned, ${sign}::int * burn_legs, ${sign}::int * minted, ${sign}::int * mint_legs
          FROM unnest(${legs.map((l) => l.day)}::date[], ${legs.map((l) => l.burned)}::numeric[], ${legs.map((l) => l.burn_legs)}::int[],
                      ${legs.map((l) => l.minted)}::numeric[], ${legs.map((l) => l.mint_legs)}::int[]) AS d(day, burned, burn_legs, minted, mint_legs)
          ON CONFLICT (chain, day) DO UPDATE SET
            burned = m.burned + excluded.burned, burn_legs = m.burn_legs + excluded.burn_legs,
            minted = m.minted + excluded.minted, mint_legs = m.mint_legs + excluded.mint_legs`,
    );
    if (sign < 0) {
      await db.query(
        'rollups.supply.migration_daily_empty',
        sql`DELETE FROM chain_migration_daily WHERE chain = ${chain} AND day = ANY(${legs.map((l) => l.day)}::date[]) AND burn_legs = 0 AND mint_legs = 0`,
      );
    }
  }
  const { minted, burned } = deltas;
  const migrationBurned = legs.reduce((a, l) => a + BigInt(l.burned), 0n);
  const migrationMinted = legs.reduce((a, l) => a + BigInt(l.minted), 0n);
  // The genesis supply comes with the genesis block (height 0) only.
  const withGenesis = step.fromHeight <= 0;
  await db.query(
    'rollups.supply.totals',
    sql`INSERT INTO chain_supply_totals AS t (chain, genesis, minted, fee_burned, migration_burned, migration_minted)
        VALUES (${chain},
                CASE WHEN ${withGenesis && sign > 0}::boolean THEN ${genesisSupply(chain)} ELSE 0 END,
                ${(s * minted).toString()}::numeric, ${(s * burned).toString()}::numeric,
                ${(s * migrationBurned).toString()}::numeric, ${(s * migrationMinted).toString()}::numeric)
        ON CONFLICT (chain) DO UPDATE SET
          genesis = CASE WHEN ${withGenesis}::boolean THEN excluded.genesis ELSE t.genesis END,
          minted = t.minted + excluded.minted, fee_burned = t.fee_burned + excluded.fee_burned,
          migration_burned = t.migration_burned + excluded.migration_burned, migration_minted = t.migration_minted + excluded.migration_minted`,
  );
}

/** Both tables of `chain` afresh from the raw rows and chain_daily (after a partial refresh). */
async function rebuild(db: Db, chain: ChainId): Promise<void> {
  await db.query('rollups.supply.clear_daily', sql`DELETE FROM chain_migration_daily WHERE chain = ${chain}`);
  await db.query('rollups.supply.clear_totals', sql`DELETE FROM chain_supply_totals WHERE chain = ${chain}`);
  await db.query(
    'rollups.supply.rebuild_daily',
    sql`INSERT INTO chain_migration_daily (chain, day, burned, burn_legs, minted, mint_legs)
        SELECT ${chain}, day::date, burned::numeric, burn_legs, minted::numeric, mint_legs FROM (${legsOf(chain, 0, Number.MAX_SAFE_INTEGER)}) legs`,
  );
  await db.query(
    'rollups.supply.rebuild_totals',
    sql`INSERT INTO chain_supply_totals (chain, genesis, minted, fee_burned, migration_burned, migration_minted)
        SELECT ${chain},
               ${genesisSupply(chain)},
               (SELECT coalesce(sum(minted), 0) FROM chain_daily WHERE chain = ${chain}),
               (SELECT coalesce(sum(burned), 0) FROM chain_daily WHERE chain = ${chain}),
               (SELECT coalesce(sum(burned), 0) FROM chain_migration_daily WHERE chain = ${chain}),
               (SELECT coalesce(sum(minted), 0) FROM chain_migration_daily WHERE chain = ${chain})
        WHERE EXISTS (SELECT 1 FROM blocks WHERE chain = ${chain})`,
  );
}

export const supply: Rollup<Issuance> = {
  name: 'supply',
  part: 'supply',
  tables: ['chain_migration_daily', 'chain_supply_totals'],
  deltas: issuance,
  async apply(db, step) {
    // A partial replay (a refresh of some addresses) sees only part of the blocks: rebuilt afterwards.
    if (!step.partial) await merge(db, step, 1);
  },
  revert: (db, step) => merge(db, step, -1),
  async afterRefresh(db, chain, partial) {
    if (partial) await rebuild(db, chain);
  },
};
