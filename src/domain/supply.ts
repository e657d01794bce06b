/**
 * Total supply (docs/metrics.md, "Total supply"): the coins holders hold at the latest indexed
 * block, i.e. the sum of the positive balances, sentinels excluded. A sentinel's balance is not
 * supply (the pow zero address holds the reserve block rewards are paid from). Every figure that
 * divides by "the supply" or takes a percent of it (the leaderboard's min_balance_pct, the
 * insights' supply_pct, whale thresholds, /supply/summary's total_supply, the exchange shares)
 * reads it here.
 *
 * Minted supply (coins issued: genesis supply plus rewards, withdrawals and migration mints) is a
 * different figure, kept by src/rollups/supply/supply.ts for the supply curves and the overview.
 */
import sql, { type Sql } from 'sql-template-tag';
import { SENTINELS, type ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';

/**
 * The total supply of `chain` as an SQL expression (numeric): the positive balances' buckets of
 * address_rank_buckets (bucket 0 holds the zero balances, bucket -1 the negative ones), less the
 * sentinels' positive balances. A few hundred bucket rows and a key lookup per sentinel, whatever
 * the population; a query that needs the supply beside other figures embeds it.
 */
export function totalSupplySql(chain: ChainId): Sql {
  return sql`((SELECT coalesce(sum(balance), 0) FROM address_rank_buckets WHERE chain = ${chain} AND metric = 'balance' AND bucket > 0)
             - (SELECT coalesce(sum(balance), 0) FROM address_summary WHERE chain = ${chain} AND address = ANY(${[...SENTINELS[chain]]}::text[]) AND balance > 0))`;
}

/** The total supply of `chain` at its latest indexed block, in its smallest unit. */
export async function totalSupply(db: Db, chain: ChainId): Promise<bigint> {
  const [row] = await db.query<{ supply: string }>('domain.total_supply', sql`SELECT ${totalSupplySql(chain)}::text AS supply`, { reusePlan: true });
  return BigInt(row?.supply ?? '0');
}
