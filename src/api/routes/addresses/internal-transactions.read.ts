/** The read of GET /{chain}/addresses/{address}/internal-transactions: one page of an address's call-frame transfers. */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';

export interface FrameRow {
  height: number;
  tx_index: number;
  block_hash: string;
  tx_hash: string;
  trace_address: string;
  call_type: string;
  from_addr: string;
  to_addr: string;
  value: string;
  ts: number;
}

/**
 * One statement: the total (the address's summary), and the page: keys first, from the two
 * per-address indexes merged newest first (index-only; a self-transfer once, by Unique), then the
 * page's rows by primary key. A page past the end reads nothing (a one-time filter).
 */
export async function readInternalTxs(db: Db, chain: ChainId, address: string, limit: number, offset: number): Promise<{ rows: FrameRow[]; total: number }> {
  const found = await db.query<FrameRow & { total: number | null }>(
    'addresses.internal.page',
    sql`WITH total AS (
          SELECT internal_tx_count AS n FROM address_summary WHERE chain = ${chain} AND address = ${address}
        ),
        page AS (
          SELECT DISTINCT height, tx_index, trace_address FROM (
            (SELECT height, tx_index, trace_address FROM internal_txs
              WHERE chain = ${chain} AND from_addr = ${address}
              ORDER BY height DESC, tx_index DESC, trace_address DESC)
            UNION ALL
            (SELECT height, tx_index, trace_address FROM internal_txs
              WHERE chain = ${chain} AND to_addr = ${address}
              ORDER BY height DESC, tx_index DESC, trace_address DESC)
          ) touching
          WHERE ${offset}::bigint < (SELECT n FROM total)
          ORDER BY height DESC, tx_index DESC, trace_address DESC
          LIMIT ${limit} OFFSET ${offset}
        ),
        frames AS (
          SELECT i.height, b.hash AS block_hash, i.tx_hash, i.tx_index, i.trace_address, i.call_type, i.from_addr, i.to_addr, i.value, i.ts
          FROM page p
          JOIN internal_txs i ON i.chain = ${chain} AND i.height = p.height AND i.tx_index = p.tx_index AND i.trace_address = p.trace_address
          JOIN blocks b ON b.chain = i.chain AND b.height = i.height
        )
        SELECT frames.*, (SELECT n FROM total) AS total
        FROM (SELECT 1) AS one LEFT JOIN frames ON true
        ORDER BY frames.height DESC, frames.tx_index DESC, frames.trace_address DESC`,
  );
  return { rows: found.filter((r) => r.tx_hash !== null), total: found[0]?.total ?? 0 };
}
