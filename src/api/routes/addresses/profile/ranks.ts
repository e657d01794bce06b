/**
 * Ranks, percentiles, supply share and holdings concentration of one address (docs/metrics.md,
 * "Ranks and percentiles"), from address_rank_buckets: the buckets above and below the address's
 * own, plus index ranges inside its own bucket. Bounded work whatever the population.
 */
import sql, { type Sql } from 'sql-template-tag';
import { SENTINELS, type ChainId } from '../../../../chain/chains.ts';
import type { Db } from '../../../../store/store.ts';
import { ageBucket, NO_AGE_BUCKET, rankBucket, rankBucketRange } from '../../../../rollups/addresses/address-ranks.ts';
import { percentOf } from '../../../amounts.ts';
import { totalSupplySql } from '../../../../domain/supply.ts';

interface Rank {
  rank: number;
  percentile: number;
  total: number;
}

interface RankFigures {
  byBalance: Rank;
  byTxCount: Rank;
  byAge: Rank;
  /** The chain's total supply (src/domain/supply.ts): what supply shares divide by. */
  supply: bigint;
  /** Addresses with a positive balance, sentinels excluded. */
  holders: number;
  /** Holders with a strictly larger balance, and the sum of their balances (sentinels excluded). */
  richer: { addresses: number; balance: bigint };
}

/** What is ranked: an address's balance, logical transaction count and first appearance. */
interface RankedValues {
  balance: bigint;
  txCount: number;
  appeared: number | null;
}

const ZERO = sql`0::bigint`;

/** Inside the balance bucket of `v`: [better, worse, sum of better balances], or zeros when the bucket is exact. */
function balanceInside(chain: ChainId, v: bigint): { better: Sql; worse: Sql; betterSum: Sql } {
  const range = rankBucketRange(rankBucket(v));
  if (range.exact) return { better: ZERO, worse: ZERO, betterSum: sql`0::numeric` };
  const value = v.toString();
  const hi = range.hi.toString();
  const lo = range.lo === null ? sql`` : sql`AND balance >= ${range.lo.toString()}::numeric`;
  return {
    better: sql`(SELECT count(*) FROM address_summary WHERE chain = ${chain} AND balance > ${value}::numeric AND balance < ${hi}::numeric)`,
    worse: sql`(SELECT count(*) FROM address_summary WHERE chain = ${chain} AND balance < ${value}::numeric ${lo})`,
    betterSum: sql`(SELECT coalesce(sum(balance), 0) FROM address_summary WHERE chain = ${chain} AND balance > ${value}::numeric AND balance < ${hi}::numeric)`,
  };
}

function txCountInside(chain: ChainId, v: number): { better: Sql; worse: Sql } {
  const range = rankBucketRange(rankBucket(BigInt(v)));
  if (range.exact) return { better: ZERO, worse: ZERO };
  return {
    better: sql`(SELECT count(*) FROM address_summary WHERE chain = ${chain} AND tx_count > ${v}::int AND tx_count < ${Number(range.hi)}::int)`,
    worse: sql`(SELECT count(*) FROM address_summary WHERE chain = ${chain} AND tx_count < ${v}::int AND tx_count >= ${Number(range.lo)}::int)`,
  };
}

/** Older is better: inside the hour of `appeared`, those before it are better, those after it worse. */
function ageInside(chain: ChainId, appeared: number | null): { better: Sql; worse: Sql } {
  if (appeared === null) return { better: ZERO, worse: ZERO };
  const lo = ageBucket(appeared) * 3600;
  return {
    better: sql`(SELECT count(*) FROM address_summary WHERE chain = ${chain} AND appeared >= ${lo}::bigint AND appeared < ${appeared}::bigint)`,
    worse: sql`(SELECT count(*) FROM address_summary WHERE chain = ${chain} AND appeared > ${appeared}::bigint AND appeared < ${lo + 3600}::bigint)`,
  };
}

interface RankRow {
  bal_total: number;
  bal_better: number;
  bal_worse: number;
  bal_in_better: number;
  bal_in_worse: number;
  supply: string;
  bal_better_sum: string;
  bal_in_better_sum: string;
  holders: number;
  sentinel_holders: number;
  sentinel_richer: number;
  sentinel_richer_sum: string;
  tx_total: number;
  tx_better: number;
  tx_worse: number;
  tx_in_better: number;
  tx_in_worse: number;
  age_total: number;
  age_better: number;
  age_worse: number;
  age_in_better: number;
  age_in_worse: number;
}

function rankOf(better: number, worse: number, total: number): Rank {
  return { rank: better + 1, percentile: percentOf(BigInt(worse), BigInt(total)), total };
}

/**
 * The ranks of `values` in the chain's address population. An address outside the population
 * (never seen) is placed where its values would put it.
 */
export async function loadRanks(db: Db, chain: ChainId, values: RankedValues): Promise<RankFigures> {
  const bb = rankBucket(values.balance);
  const tb = rankBucket(BigInt(values.txCount));
  const ab = values.appeared === null ? NO_AGE_BUCKET : ageBucket(values.appeared);
  const bal = balanceInside(chain, values.balance);
  const tx = txCountInside(chain, values.txCount);
  const age = ageInside(chain, values.appeared);
  const [row] = await db.query<RankRow>(
    'addresses.profile.ranks',
    sql`WITH b AS (
          SELECT coalesce(sum(addresses) FILTER (WHERE metric = 'balance'), 0)::bigint AS bal_total,
                 coalesce(sum(addresses) FILTER (WHERE metric = 'balance' AND bucket > ${bb}::bigint), 0)::bigint AS bal_better,
                 coalesce(sum(addresses) FILTER (WHERE metric = 'balance' AND bucket < ${bb}::bigint), 0)::bigint AS bal_worse,
                 coalesce(sum(balance) FILTER (WHERE metric = 'balance' AND bucket > ${bb}::bigint), 0) AS bal_better_sum,
                 coalesce(sum(addresses) FILTER (WHERE metric = 'balance' AND bucket > 0), 0)::bigint AS holders,
                 coalesce(sum(addresses) FILTER (WHERE metric = 'tx_count'), 0)::bigint AS tx_total,
                 coalesce(sum(addresses) FILTER (WHERE metric = 'tx_count' AND bucket > ${tb}::bigint), 0)::bigint AS tx_better,
                 coalesce(sum(addresses) FILTER (WHERE metric = 'tx_count' AND bucket < ${tb}::bigint), 0)::bigint AS tx_worse,
                 coalesce(sum(addresses) FILTER (WHERE metric = 'age'), 0)::bigint AS age_total,
                 coalesce(sum(addresses) FILTER (WHERE metric = 'age' AND bucket < ${ab}::bigint), 0)::bigint AS age_better,
                 coalesce(sum(addresses) FILTER (WHERE metric = 'age' AND bucket > ${ab}::bigint), 0)::bigint AS age_worse
          FROM address_rank_buckets WHERE chain = ${chain}
        )
        SELECT b.*, ${totalSupplySql(chain)}::text AS supply, ${bal.better} AS bal_in_better, ${bal.worse} AS bal_in_worse, ${bal.betterSum} AS bal_in_better_sum,
               ${tx.better} AS tx_in_better, ${tx.worse} AS tx_in_worse,
               ${age.better} AS age_in_better, ${age.worse} AS age_in_worse,
               s.holders AS sentinel_holders, s.richer AS sentinel_richer, s.richer_sum AS sentinel_richer_sum
        FROM b,
             -- The sentinels' rows (the pow zero address holds the reserve rewards are paid from): out of the holders.
             (SELECT count(*) FILTER (WHERE balance > 0)::bigint AS holders,
                     count(*) FILTER (WHERE balance > 0 AND balance > ${values.balance.toString()}::numeric)::bigint AS richer,
                     coalesce(sum(balance) FILTER (WHERE balance > 0 AND balance > ${values.balance.toString()}::numeric), 0) AS richer_sum
              FROM address_summary WHERE chain = ${chain} AND address = ANY(${[...SENTINELS[chain]]}::text[])) AS s`,
    // Bucket sums and index-only range counts inside one bucket (bounded): planned once.
    { reusePlan: true },
  );
  const r = row!;
  const richer = r.bal_better + r.bal_in_better;
  return {
    byBalance: rankOf(richer, r.bal_worse + r.bal_in_worse, r.bal_total),
    byTxCount: rankOf(r.tx_better + r.tx_in_better, r.tx_worse + r.tx_in_worse, r.tx_total),
    byAge: rankOf(r.age_better + r.age_in_better, r.age_worse + r.age_in_worse, r.age_total),
    supply: BigInt(r.supply),
    holders: Number(r.holders) - Number(r.sentinel_holders),
    richer: { addresses: richer - Number(r.sentinel_richer), balance: BigInt(r.bal_better_sum) + BigInt(r.bal_in_better_sum) - BigInt(r.sentinel_richer_sum) },
  };
}
