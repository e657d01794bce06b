/** The read of GET /{chain}/transactions/pending: the stored pending set, newest first seen first, by keyset. */
import sql, { empty } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';

export interface PendingRow {
  tx_hash: string;
  first_seen: number | string;
  pool: 'pending' | 'queued';
  tx_type: string;
  tx_type_evm: number | null;
  from_addr: string;
  to_addr: string | null;
  value: string;
  recipient_count: number;
  fee: string | null;
  nonce: number | string | null;
  gas: number | string | null;
  gas_price: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
}

/**
 * One page of `chain`'s pending transactions after the key `after` (first_seen, tx_hash), and how
 * many the chain holds, in one statement: `limit + 1` entries of pending_txs_seen from the key
 * down, and an index-only count of at most PENDING_CAP entries.
 */
export async function readPendingTransactions(db: Db, chain: ChainId, after: readonly [number, string] | null, limit: number): Promise<{ rows: PendingRow[]; total: number }> {
  const found = await db.query<PendingRow & { total: number }>(
    'transactions.pending',
    sql`SELECT (SELECT count(*) FROM pending_txs WHERE chain = ${chain})::int AS total, p.*
        FROM (SELECT 1) AS one
        LEFT JOIN LATERAL (
          SELECT tx_hash, first_seen, pool, tx_type, tx_type_evm, from_addr, to_addr, value::text AS value, recipient_count, fee::text AS fee,
                 nonce, gas, gas_price::text AS gas_price, max_fee_per_gas::text AS max_fee_per_gas, max_priority_fee_per_gas::text AS max_priority_fee_per_gas
          FROM pending_txs
          WHERE chain = ${chain} ${after === null ? empty : sql`AND (first_seen, tx_hash) < (${after[0]}, ${after[1]})`}
          ORDER BY first_seen DESC, tx_hash DESC
          LIMIT ${limit + 1}
        ) AS p ON true
        ORDER BY p.first_seen DESC, p.tx_hash DESC`,
    { reusePlan: true }, // an index range from its newest end, and a count bounded by the cap
  );
  return { rows: found.filter((row) => row.tx_hash !== null), total: found[0]?.total ?? 0 };
}
