/** The read of GET /{chain}/tokens/{token}/transfers: a token's transfers, newest first, by keyset. */
import sql, { empty } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';

export interface TransferRow {
  height: number;
  tx_index: number;
  log_index: number;
  tx_hash: string;
  ts: number;
  block_hash: string | null;
  from_addr: string;
  to_addr: string;
  amount: string;
}

/**
 * One page of the token's transfers before the cursor's (height, tx_index, log_index), newest
 * first: token_transfers_contract_position (migration 0092) read backwards from the position,
 * `limit` entries whatever the depth. Each row's block hash is looked up by key.
 *
 * The contract is a range of one value and leads the order: with `contract = $1` the planner drops
 * the contract from the order (it is constant) and may walk the primary key from the cursor's
 * height, skipping the other tokens' rows, which for a rare token is every transfer below the
 * cursor. Only the contract's index gives this order.
 */
export function readTransfers(db: Db, chain: ChainId, contract: string, after: readonly [number, number, number] | null, limit: number): Promise<TransferRow[]> {
  return db.query<TransferRow>(
    'tokens.transfers',
    sql`SELECT x.height, x.tx_index, x.log_index, x.tx_hash, x.ts,
               (SELECT b.hash FROM blocks b WHERE b.chain = x.chain AND b.height = x.height) AS block_hash,
               x.from_addr, x.to_addr, x.amount::text AS amount
        FROM token_transfers x
        WHERE x.chain = ${chain} AND x.contract BETWEEN ${contract} AND ${contract}
          ${after === null ? empty : sql`AND (x.height, x.tx_index, x.log_index) < (${after[0]}, ${after[1]}, ${after[2]})`}
        ORDER BY x.contract DESC, x.height DESC, x.tx_index DESC, x.log_index DESC
        LIMIT ${limit}`,
    { reusePlan: true }, // an index range from its newest end
  );
}
