/** The reads of GET /{chain}/addresses/{address}/slaves: a master's slave keys with their own summaries. */
import sql from 'sql-template-tag';
import type { Db } from '../../../store/store.ts';
import type { ChainId } from '../../../chain/chains.ts';

export interface SlaveRow {
  slave_address: string;
  access_type: number;
  ts: number;
  height: number;
  tx_count: number | null;
  first_seen: number | null;
  last_seen: number | null;
}

/** The count of a master's slaves and one page of them, newest registration first, in one statement. */
export async function readSlaves(db: Db, chain: ChainId, master: string, limit: number, offset: number): Promise<{ rows: SlaveRow[]; total: number }> {
  const found = await db.query<SlaveRow & { total: number }>(
    'addresses.slaves.page',
    sql`SELECT counted.total, p.*
        FROM (SELECT count(*)::int AS total FROM slaves WHERE chain = ${chain} AND master_address = ${master}) AS counted
        LEFT JOIN LATERAL (
          SELECT sl.slave_address, sl.access_type, sl.ts, sl.height, s.tx_count, s.first_seen, s.last_seen
          FROM slaves sl
          LEFT JOIN address_summary s ON s.chain = sl.chain AND s.address = sl.slave_address
          WHERE sl.chain = ${chain} AND sl.master_address = ${master}
          ORDER BY sl.height DESC, sl.tx_index DESC, sl.slave_address
          LIMIT ${limit} OFFSET ${offset}
        ) AS p ON true`,
    { reusePlan: true }, // the master's index range, in order
  );
  return { rows: found.filter((r) => r.slave_address !== null), total: found[0]?.total ?? 0 };
}
