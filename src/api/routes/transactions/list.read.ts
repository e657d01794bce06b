/** The reads of GET /{chain}/transactions: the chain's transactions, newest first, by keyset. */
import sql, { empty } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import type { FeedRow } from '../addresses/feed/rows.ts';

/** A transaction as one row: its own to_addr and whole value (null and the total on a multi-recipient pow transfer). */
export interface ChainTxRow extends Omit<FeedRow, 'ri' | 'recipient_index'> {
  recipient_count: number;
}

/**
 * The columns of a transaction row (`t`) with its block's hash, looked up per row: a join would let
 * the planner merge the whole blocks index from the tip down to a deep cursor.
 */
export const TX_COLUMNS = sql`t.height, t.tx_index, t.tx_hash, t.ts,
  (SELECT b.hash FROM blocks b WHERE b.chain = t.chain AND b.height = t.height) AS block_hash, t.tx_type, t.tx_type_evm, t.from_addr, t.to_addr,
  t.value, t.fee, t.recipient_count, t.nonce, t.gas, t.gas_used, t.gas_price, t.effective_gas_price, t.contract_address,
  t.status, t.master_addr, t.signer_addr, t.input_data`;

/**
 * One page of the chain's transactions (of `txType` only, when given) after the key `after`, and
 * the total in the same statement. The walk reads the primary key, or transactions_type with a
 * type (migration 0087), from the key down: `limit + 1` entries whatever the depth. The total is
 * exact from the rollups: chain_stats for the chain, chain_tx_types (a row per day and type) for a type.
 */
export async function readChainTransactions(
  db: Db,
  chain: ChainId,
  txType: string | null,
  after: readonly [number, number] | null,
  limit: number,
): Promise<{ rows: ChainTxRow[]; total: number }> {
  const total =
    txType === null
      ? sql`(SELECT coalesce((SELECT tx_count FROM chain_stats WHERE chain = ${chain}), 0))::bigint`
      : sql`(SELECT coalesce(sum(tx_count), 0) FROM chain_tx_types WHERE chain = ${chain} AND tx_type = ${txType})::bigint`;
  const found = await db.query<ChainTxRow & { total: number }>(
    txType === null ? 'transactions.list' : 'transactions.list.type',
    sql`SELECT ${total} AS total, p.*
        FROM (SELECT 1) AS one
        LEFT JOIN LATERAL (
          SELECT ${TX_COLUMNS}
          FROM transactions t
          WHERE t.chain = ${chain} ${txType === null ? empty : sql`AND t.tx_type = ${txType}`}
            ${after === null ? empty : sql`AND (t.height, t.tx_index) < (${after[0]}, ${after[1]})`}
          ORDER BY t.height DESC, t.tx_index DESC
          LIMIT ${limit + 1}
        ) AS p ON true
        ORDER BY p.height DESC, p.tx_index DESC`,
    { reusePlan: true }, // an index range from its newest end, whatever the chain or type
  );
  return { rows: found.filter((row) => row.tx_hash !== null), total: found[0]?.total ?? 0 };
}
