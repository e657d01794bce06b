/**
 * The height of a chain's node tip as last seen by what feeds the chain (docs/metrics.md, "Supply",
 * node tip): the supply overview compares it with the latest indexed block. Beside it the node's
 * finalized block where the feed knows one (the block pages' `finalized`, docs/api-blocks.md).
 */
import type { Logger } from 'pino';
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';

/** How often a running indexer records a node tip that has not moved: `indexer_seen_seconds_ago` stays below it (and a poll). */
export const NODE_TIP_REFRESH_MS = 30_000;

/**
 * What an indexer tells every head it reads from its node (at start, at every poll while
 * following): the tip is recorded when it moved, and otherwise at least every `refreshMs`, so that
 * the chain's lag (`quarry_chain_node_lag_blocks`) and the indexer's liveness
 * (`indexer_seen_seconds_ago`) stay current. Recording a tip that did not move at every poll would
 * commit once a poll, and each commit ends every answer the API keeps per snapshot. One write at a
 * time; a failed one (a store outage, which the pipeline waits out itself) is tried at the next head.
 */
export function nodeTipRecorder(db: Db, chain: ChainId, logger: Logger, refreshMs = NODE_TIP_REFRESH_MS): (head: { height: number }) => void {
  let recorded: { height: number; at: number } | null = null;
  let writing = false;
  return (head) => {
    const now = Date.now();
    if (writing || (recorded !== null && recorded.height === head.height && now - recorded.at < refreshMs)) return;
    writing = true;
    recordNodeTip(db, chain, head.height).then(
      () => {
        recorded = { height: head.height, at: now };
        writing = false;
      },
      (error: unknown) => {
        writing = false;
        logger.debug({ chain, err: error instanceof Error ? error.message : String(error) }, 'node tip not recorded');
      },
    );
  };
}

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
