/** The read of GET /{chain}/tokens/{token}, and of the token the lists of one token's items name. */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';

/** The columns of a token summary (TokenSummary). */
export interface TokenSummaryRow {
  contract: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  supply: string | null;
  holders: number | null;
  transfers: number | null;
  first_height: number | null;
  first_ts: number | null;
}

export interface TokenRow extends TokenSummaryRow {
  creator: string | null;
  created_tx: string | null;
  created_height: number | null;
  created_ts: number | null;
}

/**
 * The stored token `id` names, or null: its figures (token_stats) and metadata (token_contracts),
 * either of which may be missing (a pow token whose creation lies before the indexed range has no
 * metadata), the time of its first transfer's block and, when stored, its creating transaction's
 * block. Key lookups only.
 */
export async function readToken(db: Db, chain: ChainId, id: string): Promise<TokenRow | null> {
  const [row] = await db.query<TokenRow & { known: boolean }>(
    'tokens.detail',
    sql`SELECT (s.contract IS NOT NULL OR c.address IS NOT NULL) AS known, k.id AS contract,
               c.name, c.symbol, c.decimals, s.supply::text AS supply, s.holders, s.transfers,
               s.first_height, (SELECT b.ts FROM blocks b WHERE b.chain = ${chain} AND b.height = s.first_height) AS first_ts,
               c.creator, c.created_tx, t.height AS created_height, t.ts AS created_ts
        FROM (SELECT ${id}::text AS id) k
        LEFT JOIN token_stats s ON s.chain = ${chain} AND s.contract = k.id
        LEFT JOIN token_contracts c ON c.chain = ${chain} AND c.address = k.id
        LEFT JOIN transactions t ON t.chain = ${chain} AND t.tx_hash = c.created_tx`,
    { reusePlan: true }, // key lookups
  );
  return row?.known ? row : null;
}
