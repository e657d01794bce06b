/** The read of GET /pos/validators/{validator}/blocks: the blocks a validator proposed, newest first. */
import sql, { empty } from 'sql-template-tag';
import type { Db } from '../../../store/store.ts';

export interface ProposalRow {
  slot: number;
  ts: number;
  reward: string;
  height: number | null;
  hash: string | null;
  tx_count: number | null;
  miner: string | null;
  priority_fees: string | null;
}

/**
 * `limit` of the validator's proposals below slot `below` (null: from the newest), each with the
 * stored pos block of its slot's time (blocks_ts; none while the block is not stored), and the count
 * of its proposals, in one statement: the validator's range of slot_proposers_proposer.
 */
export async function readProposals(db: Db, index: number, below: number | null, limit: number): Promise<{ rows: ProposalRow[]; total: number }> {
  const found = await db.query<ProposalRow & { total: number }>(
    below === null ? 'validators.blocks.first' : 'validators.blocks.after',
    sql`SELECT counted.total, p.*
        FROM (SELECT count(*)::int AS total FROM slot_proposers WHERE chain = 'pos' AND proposer_index = ${index}) AS counted
        LEFT JOIN LATERAL (
          SELECT s.slot, s.ts, s.reward::text AS reward, b.height, b.hash, b.tx_count, b.miner, b.priority_fees::text AS priority_fees
          FROM slot_proposers s
          LEFT JOIN LATERAL (
            SELECT height, hash, tx_count, miner, priority_fees FROM blocks WHERE chain = s.chain AND ts = s.ts ORDER BY height DESC LIMIT 1
          ) AS b ON true
          WHERE s.chain = 'pos' AND s.proposer_index = ${index} ${below === null ? empty : sql`AND s.slot < ${below}`}
          ORDER BY s.slot DESC
          LIMIT ${limit}
        ) AS p ON true`,
    { reusePlan: true }, // the validator's index range read backwards under a limit, a blocks_ts probe per row
  );
  return { rows: found.filter((r) => r.slot !== null), total: found[0]?.total ?? 0 };
}
