/** The reads of GET /{chain}/blocks/{id}/transactions: a block's transaction rows in block order. */
import sql, { empty } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import { loadFeedRows, type FeedRow } from '../addresses/feed/rows.ts';

/** A row's position in its block: the transaction's, then its recipient's (0 without a recipient list). */
export type BlockRowKey = readonly [txIndex: number, ri: number];

/**
 * `limit` rows of the block at `height` after `after` (null: from the first), one per recipient as
 * in the address feed (feed/keys.ts): a transaction with a recipient list has a row per entry, any
 * other one row. The block's row count comes in the same statement: each transaction's
 * recipient_count (at least one row), summed over the block's primary-key range.
 */
export async function readBlockTransactions(db: Db, chain: ChainId, height: number, after: BlockRowKey | null, limit: number): Promise<{ rows: FeedRow[]; total: number }> {
  const keyset = after === null ? empty : sql`AND (t.tx_index > ${after[0]} OR (t.tx_index = ${after[0]} AND coalesce(r.recipient_index, 0) > ${after[1]}))`;
  const page = sql`(SELECT t.height, t.tx_index, coalesce(r.recipient_index, 0) AS ri
                    FROM transactions t
                    LEFT JOIN tx_recipients r ON r.chain = t.chain AND r.height = t.height AND r.tx_index = t.tx_index
                    WHERE t.chain = ${chain} AND t.height = ${height} ${after === null ? empty : sql`AND t.tx_index >= ${after[0]}`} ${keyset}
                    ORDER BY t.tx_index, ri
                    LIMIT ${limit})`;
  const total = sql`(SELECT coalesce(sum(greatest(recipient_count, 1)), 0)::int FROM transactions WHERE chain = ${chain} AND height = ${height})`;
  const { rows, total: count } = await loadFeedRows(db, 'blocks.transactions.page', chain, page, total, 'oldest');
  return { rows, total: count ?? 0 };
}
