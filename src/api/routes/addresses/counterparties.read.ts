/** The reads of GET /{chain}/addresses/{address}/counterparties: the addresses it transacts with most. */
import sql, { raw } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';

export const COUNTERPARTY_DIRECTIONS = ['sent', 'received', 'both'] as const;
export type CounterpartyDirection = (typeof COUNTERPARTY_DIRECTIONS)[number];

export interface PairRow {
  counterparty: string;
  n: number;
  total_sent: string;
  total_received: string;
  last_ts: number;
}

/**
 * Each direction ranks by its own count. sent and received read an index ordered by that count
 * (migration 0020); both, the default, reads a partial index of the pairs with two transactions or
 * more, and only when those are fewer than `limit` the pairs with one, in address order (the
 * primary key's), which is their ranking order among themselves.
 */
const RANKING: Record<CounterpartyDirection, { count: string; filter: string }> = {
  both: { count: 'tx_count', filter: 'AND tx_count >= 2' },
  sent: { count: 'sent_count', filter: 'AND sent_count > 0' },
  received: { count: 'received_count', filter: 'AND received_count > 0' },
};

/** The address's first `limit` counterparties in `direction`'s ranking. */
export async function readCounterparties(db: Db, chain: ChainId, address: string, direction: CounterpartyDirection, limit: number): Promise<PairRow[]> {
  const { count, filter } = RANKING[direction];
  const rows = await db.query<PairRow>(
    `addresses.counterparties.${direction}`,
    sql`SELECT counterparty, ${raw(count)} AS n, total_sent, total_received, last_ts
        FROM address_counterparties
        WHERE chain = ${chain} AND address = ${address} ${raw(filter)}
        ORDER BY ${raw(count)} DESC, counterparty
        LIMIT ${limit}`,
    { reusePlan: true }, // the direction's index, in order
  );
  if (direction === 'both' && rows.length < limit) {
    rows.push(
      ...(await db.query<PairRow>(
        'addresses.counterparties.both_single',
        sql`SELECT counterparty, tx_count AS n, total_sent, total_received, last_ts
            FROM address_counterparties
            WHERE chain = ${chain} AND address = ${address} AND tx_count = 1
            ORDER BY counterparty
            LIMIT ${limit - rows.length}`,
        { reusePlan: true }, // the primary key, in order
      )),
    );
  }
  return rows;
}
