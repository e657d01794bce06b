/** Full rows of the transaction feed for a page of row keys, and their API shape. */
import sql, { raw, type Sql } from 'sql-template-tag';
import type { Db } from '../../../../store/store.ts';
import type { ChainId } from '../../../../chain/chains.ts';
import { formatTimestamp } from '../../../../time.ts';
import type { AnswerAmount } from '../../../amounts.ts';
import type { TransactionDetailType } from '../../../schemas/transaction.ts';

export interface FeedRow {
  height: number;
  tx_index: number;
  ri: number;
  tx_hash: string;
  ts: number;
  block_hash: string;
  tx_type: string;
  tx_type_evm: number | null;
  from_addr: string;
  to_addr: string | null;
  recipient_index: number | null;
  value: string;
  fee: string;
  nonce: number | null;
  gas: number | null;
  gas_used: number | null;
  gas_price: string | null;
  effective_gas_price: string | null;
  contract_address: string | null;
  status: number | null;
  master_addr: string | null;
  signer_addr: string | null;
  input_data: string | null;
}

/** How rows come out: newest first (the address feed) or in chain order (a block's transactions). */
export type RowOrder = 'newest' | 'oldest';

const ORDER_BY: Record<RowOrder, string> = {
  newest: 'rows.height DESC, rows.tx_index DESC, rows.ri DESC',
  oldest: 'rows.height, rows.tx_index, rows.ri',
};

/**
 * The rows of `page` (a subquery of keys height, tx_index, ri), and `total` (a scalar subquery, or
 * null) in the same statement, in `order`. A row of a transaction with a recipient list shows that
 * recipient and its amount; the fee is always the whole transaction's. The address feed and a
 * block's transaction list (routes/blocks/transactions.read.ts) both read their rows here.
 */
export async function loadFeedRows(
  db: Db,
  label: string,
  chain: ChainId,
  page: Sql,
  total: Sql | null = null,
  order: RowOrder = 'newest',
): Promise<{ rows: FeedRow[]; total: number | null }> {
  const found = await db.query<FeedRow & { total: number | null }>(
    label,
    sql`WITH page AS ${page},
        rows AS (
          SELECT k.height, k.tx_index, k.ri, t.tx_hash, t.ts, b.hash AS block_hash, t.tx_type, t.tx_type_evm, t.from_addr,
                 CASE WHEN r.recipient_index IS NULL THEN t.to_addr ELSE r.to_addr END AS to_addr,
                 r.recipient_index,
                 CASE WHEN r.recipient_index IS NULL THEN t.value ELSE r.amount END AS value,
                 t.fee, t.nonce, t.gas, t.gas_used, t.gas_price, t.effective_gas_price, t.contract_address, t.status,
                 t.master_addr, t.signer_addr, t.input_data
          FROM page AS k
          JOIN transactions t ON t.chain = ${chain} AND t.height = k.height AND t.tx_index = k.tx_index
          JOIN blocks b ON b.chain = ${chain} AND b.height = k.height
          LEFT JOIN tx_recipients r ON r.chain = ${chain} AND r.height = k.height AND r.tx_index = k.tx_index AND r.recipient_index = k.ri
        )
        SELECT rows.*, ${total ?? sql`NULL::integer`} AS total
        FROM (SELECT 1) AS one LEFT JOIN rows ON true
        ORDER BY ${raw(ORDER_BY[order])}`,
    // Ordered index scans under a limit and key joins, whatever the address: planned once.
    { reusePlan: true },
  );
  return { rows: found.filter((row) => row.tx_hash !== null), total: found[0]?.total ?? null };
}

/** A feed row as TransactionDetail; `address` is the address whose feed it is, or the sender (named when an amount is logged). */
export function toTransactionDetail(row: FeedRow, chain: ChainId, network: string, address: string, amount: AnswerAmount): TransactionDetailType {
  const tx = { tx_hash: row.tx_hash };
  return {
    chain,
    network,
    tx_hash: row.tx_hash,
    height: row.height,
    timestamp: formatTimestamp(row.ts),
    from_addr: row.from_addr,
    to_addr: row.to_addr,
    block_hash: row.block_hash,
    tx_index: row.tx_index,
    recipient_index: row.recipient_index,
    value: amount(row.value, address, 'value', tx),
    fee: amount(row.fee, address, 'fee', tx),
    nonce: row.nonce,
    tx_type: row.tx_type,
    tx_type_evm: row.tx_type_evm,
    gas: row.gas,
    gas_used: row.gas_used,
    gas_price: amount(row.gas_price, address, 'gas_price', tx),
    effective_gas_price: amount(row.effective_gas_price, address, 'effective_gas_price', tx),
    contract_address: row.contract_address,
    status: row.status,
    master_addr: row.master_addr,
    signer_addr: row.signer_addr,
    input_data: row.input_data,
  };
}
