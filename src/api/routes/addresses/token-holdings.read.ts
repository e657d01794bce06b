/** The read of GET /{chain}/addresses/{address}/token-holdings: an address's positive token balances. */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';

export interface HoldingRow {
  contract: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  balance: string;
  transfer_count: number;
  last_ts: number | null;
}

/**
 * Richest first by the displayed amount: raw balances scaled to a common number of decimals (exact
 * NUMERIC arithmetic), so that 2 units of an 18-decimal token outrank 1 of a 6-decimal one.
 */
export function readTokenHoldings(db: Db, chain: ChainId, address: string, limit: number): Promise<HoldingRow[]> {
  return db.query<HoldingRow>(
    'addresses.token_holdings',
    sql`SELECT b.contract, c.name, c.symbol, c.decimals, b.balance, b.transfer_count, b.last_ts
        FROM token_balances b
        LEFT JOIN token_contracts c ON c.chain = b.chain AND c.address = b.contract
        WHERE b.chain = ${chain} AND b.address = ${address} AND b.balance > 0
        ORDER BY b.balance * (10::numeric ^ (255 - least(greatest(coalesce(c.decimals, 0), 0), 255))) DESC, b.contract
        LIMIT ${limit}`,
    { reusePlan: true }, // the address's primary-key range
  );
}
