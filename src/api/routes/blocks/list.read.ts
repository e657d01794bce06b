/** The reads of GET /{chain}/blocks: one page of blocks, newest first, with the chain's block count. */
import sql, { empty } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import type { HeightRange } from '../height-range.read.ts';

/** The columns of a block summary (BlockSummary). */
export interface BlockSummaryRow {
  height: number;
  hash: string;
  ts: number;
  tx_count: number;
  miner: string | null;
  size: number;
  reward: string;
  fees: string;
  gas_used: number | null;
  gas_limit: number | null;
  base_fee_per_gas: string | null;
  burned: string;
}

export const SUMMARY_COLUMNS = sql`b.height, b.hash, b.ts, b.tx_count, b.miner, b.size, b.reward::text AS reward, b.fees::text AS fees,
  b.gas_used, b.gas_limit, b.base_fee_per_gas::text AS base_fee_per_gas, b.burned::text AS burned`;

export interface BlocksQuery {
  chain: ChainId;
  /** Only the blocks of this producer (blocks.miner); null = all. */
  producer: string | null;
  heights: HeightRange;
  /** Only blocks below this height (the cursor's); null = from the tip. */
  below: number | null;
  /** Rows read: a page and one more (whether more follow). */
  limit: number;
}

/**
 * One page of blocks, newest first: the primary key read backwards, or the producer's range of
 * blocks_miner (migration 0085), from the cursor's height down; a time range is a height range
 * (height-range.read.ts). `total` is the chain's block count (chain_stats) when nothing filters
 * the list, else null: a count of a producer's blocks or of a range would cost more than the page.
 */
export async function readBlocks(db: Db, q: BlocksQuery): Promise<{ rows: BlockSummaryRow[]; total: number | null }> {
  const { chain, producer, heights, below } = q;
  const unfiltered = producer === null && heights.fromHeight === null && heights.toHeight === null;
  const found = await db.query<BlockSummaryRow & { total: number | null }>(
    producer === null ? 'blocks.list' : 'blocks.list.producer',
    sql`SELECT counted.total, p.*
        FROM (SELECT ${unfiltered ? sql`(SELECT block_count FROM chain_stats WHERE chain = ${chain})` : sql`NULL::bigint`} AS total) AS counted
        LEFT JOIN LATERAL (
          SELECT ${SUMMARY_COLUMNS}
          FROM blocks b
          WHERE b.chain = ${chain}
            ${producer === null ? empty : sql`AND b.miner = ${producer}`}
            ${heights.fromHeight === null ? empty : sql`AND b.height >= ${heights.fromHeight}`}
            ${heights.toHeight === null ? empty : sql`AND b.height < ${heights.toHeight}`}
            ${below === null ? empty : sql`AND b.height < ${below}`}
          ORDER BY b.height DESC
          LIMIT ${q.limit}
        ) AS p ON true`,
    { reusePlan: true }, // an index range read backwards under a limit
  );
  return { rows: found.filter((r) => r.hash !== null), total: found[0]?.total ?? (unfiltered ? 0 : null) };
}
