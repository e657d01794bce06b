/** The read of GET /{chain}/addresses/{address}/balance-history: where an address's daily series starts and ends. */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';

export interface HistoryBounds {
  tip_day: string | null;
  first_day: string | null;
  balance: string | null;
}

/** The day of the chain's latest block, the address's first active day and its balance now. */
export async function readHistoryBounds(db: Db, chain: ChainId, address: string): Promise<HistoryBounds | undefined> {
  const [bounds] = await db.query<HistoryBounds>(
    'addresses.balance_history.bounds',
    sql`SELECT (SELECT (DATE '1970-01-01' + (ts / 86400)::int)::text FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1) AS tip_day,
               (SELECT day::text FROM address_daily WHERE chain = ${chain} AND address = ${address}
                  AND (received > 0 OR sent + fees > 0 OR tx_in > 0 OR tx_out > 0) ORDER BY day LIMIT 1) AS first_day,
               (SELECT balance::text FROM address_summary WHERE chain = ${chain} AND address = ${address}) AS balance`,
    { reusePlan: true }, // key lookups and the address's first day (a primary-key range read from its start)
  );
  return bounds;
}
