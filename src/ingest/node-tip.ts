/**
 * The height of a chain's node tip as last seen by what feeds the chain (docs/metrics.md, "Supply",
 * node tip): the supply overview compares it with the latest indexed block. Beside it the node's
 * finalized block where the feed knows one (the block pages' `finalized`, docs/api-blocks.md).
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';

export async function recordNodeTip(db: Db, chain: ChainId, height: number, seenTs = Math.floor(Date.now() / 1000)): Promise<void> {
  await db.query(
    'ingest.node_tip',
    sql`INSERT INTO chain_node_tips (chain, height, seen_ts) VALUES (${chain}, ${height}, ${seenTs})
        ON CONFLICT (chain) DO UPDATE SET height = excluded.height, seen_ts = excluded.seen_ts`,
  );
}

/**
 * The node's finalized height: the blocks at or below it can no longer change. Never lowered: a
 * node that answers an older finalized block (another node behind a balancer, a restart) does not
 * take back what was final. Recorded beside a tip already recorded (a no-op before the first).
 */
export async function recordFinalizedHeight(db: Db, chain: ChainId, finalized: number): Promise<void> {
  await db.query(
    'ingest.node_tip.finalized',
    sql`UPDATE chain_node_tips SET finalized_height = greatest(coalesce(finalized_height, ${finalized}), ${finalized}) WHERE chain = ${chain}`,
  );
}
