/**
 * The height of a chain's node tip as last seen by what feeds the chain (docs/metrics.md, "Supply",
 * node tip): the supply overview compares it with the latest indexed block.
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
