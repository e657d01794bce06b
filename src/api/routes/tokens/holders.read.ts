/** The read of GET /{chain}/tokens/{token}/holders: a token's holders, richest first, by keyset. */
import sql, { empty } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';

export interface HolderRow {
  address: string;
  balance: string;
  transfer_count: number;
  last_ts: number | null;
}

/**
 * One page of the token's positive balances after the cursor's (balance, address), richest first
 * and equal balances by address descending: token_balances_holders (migration 0092) read backwards
 * from the position, `limit` entries whatever the depth.
 */
export function readHolders(db: Db, chain: ChainId, contract: string, after: readonly [string, string] | null, limit: number): Promise<HolderRow[]> {
  return db.query<HolderRow>(
    'tokens.holders',
    sql`SELECT b.address, b.balance::text AS balance, b.transfer_count, b.last_ts
        FROM token_balances b
        WHERE b.chain = ${chain} AND b.contract = ${contract} AND b.balance > 0
          ${after === null ? empty : sql`AND (b.balance, b.address) < (${after[0]}::numeric, ${after[1]})`}
        ORDER BY b.balance DESC, b.address DESC
        LIMIT ${limit}`,
    { reusePlan: true }, // an index range from its richest end
  );
}
