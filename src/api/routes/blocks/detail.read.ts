/** The reads of GET /{chain}/blocks/{id}: a block by height or hash, and what its page adds. */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import type { BlockId } from '../../params/block-id.ts';
import { SUMMARY_COLUMNS, type BlockSummaryRow } from './list.read.ts';

export interface BlockDetailRow extends BlockSummaryRow {
  parent_hash: string;
  priority_fees: string;
  withdrawals_total: string;
  withdrawals_count: number;
  /** The latest stored height of the chain. */
  tip_height: number;
  /** chain_node_tips.finalized_height: null when nothing recorded one. */
  finalized_height: number | null;
  /** pos: the proposer of the slot at the block's time, as the staking sync recorded it (slot_proposers); null when none is. */
  proposer_index: number | null;
}

const where = (chain: ChainId, id: BlockId) => (id.hash === undefined ? sql`b.chain = ${chain} AND b.height = ${id.height}` : sql`b.chain = ${chain} AND b.hash = ${id.hash}`);

/** The stored block `id` names with its withdrawal count, the tip, the finalized height and its proposer, in one statement; null when none. */
export async function readBlockDetail(db: Db, chain: ChainId, id: BlockId): Promise<BlockDetailRow | null> {
  const [row] = await db.query<BlockDetailRow>(
    id.hash === undefined ? 'blocks.detail.height' : 'blocks.detail.hash',
    sql`SELECT ${SUMMARY_COLUMNS}, b.parent_hash, b.priority_fees::text AS priority_fees, b.withdrawals_total::text AS withdrawals_total,
               (SELECT count(*)::int FROM withdrawals w WHERE w.chain = b.chain AND w.height = b.height) AS withdrawals_count,
               (SELECT t.height FROM blocks t WHERE t.chain = b.chain ORDER BY t.height DESC LIMIT 1) AS tip_height,
               (SELECT n.finalized_height FROM chain_node_tips n WHERE n.chain = b.chain) AS finalized_height,
               (SELECT p.proposer_index FROM slot_proposers p WHERE p.chain = b.chain AND p.ts = b.ts) AS proposer_index
        FROM blocks b
        WHERE ${where(chain, id)}`,
    { reusePlan: true }, // key lookups: the primary key or blocks_hash
  );
  return row ?? null;
}

/** The height and hash of the stored block `id` names; null when none. */
export async function findBlock(db: Db, chain: ChainId, id: BlockId): Promise<{ height: number; hash: string } | null> {
  const [row] = await db.query<{ height: number; hash: string }>(
    id.hash === undefined ? 'blocks.find.height' : 'blocks.find.hash',
    sql`SELECT b.height, b.hash FROM blocks b WHERE ${where(chain, id)}`,
    { reusePlan: true }, // a key lookup
  );
  return row ?? null;
}
