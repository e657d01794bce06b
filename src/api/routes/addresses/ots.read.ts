/**
 * The reads of GET /pow/addresses/{address}/ots: the key indexes of every signature an address's
 * own key made, from the address's range of transactions_ots (the slave's for a transaction a
 * slave signed, else the sender's: migration 0095).
 */
import sql from 'sql-template-tag';
import type { Db } from '../../../store/store.ts';

/** The rows of one signing key: those with an index, under the address whose key made them. */
const keyRows = (address: string) => sql`chain = 'pow' AND coalesce(signer_addr, from_addr) = ${address} AND ots_index IS NOT NULL`;

export interface OtsSummaryRow {
  signatures: number;
  used: number;
  highest: number | null;
  reused: number;
  /** The lowest index from 0 up that no signature used (ignoring the tree's size). */
  first_gap: number;
  /** The distinct indexes used from `from` to `to`, ascending. */
  page_indexes: number[];
}

/**
 * The figures of an address's key in one statement: its signatures, the distinct indexes they
 * used, the highest, how many indexes were used more than once, the first index no signature used,
 * and the distinct indexes of one page (`from` to `to`).
 */
export async function readOtsSummary(db: Db, address: string, from: number, to: number): Promise<OtsSummaryRow> {
  const [row] = await db.query<OtsSummaryRow>(
    'addresses.ots.summary',
    sql`WITH k AS MATERIALIZED (SELECT ots_index FROM transactions WHERE ${keyRows(address)})
        SELECT (SELECT count(*)::int FROM k) AS signatures,
               (SELECT count(DISTINCT ots_index)::int FROM k) AS used,
               (SELECT max(ots_index) FROM k) AS highest,
               (SELECT count(*)::int FROM (SELECT 1 FROM k GROUP BY ots_index HAVING count(*) > 1) r) AS reused,
               CASE WHEN NOT EXISTS (SELECT 1 FROM k WHERE ots_index = 0) THEN 0
                    ELSE (SELECT w.ots_index + 1 FROM (SELECT ots_index, lead(ots_index) OVER (ORDER BY ots_index) AS following FROM k) w
                          WHERE w.following IS NULL OR w.following > w.ots_index + 1 ORDER BY w.ots_index LIMIT 1) END AS first_gap,
               (SELECT coalesce(array_agg(DISTINCT ots_index ORDER BY ots_index), '{}') FROM k WHERE ots_index BETWEEN ${from} AND ${to}) AS page_indexes`,
    { reusePlan: true }, // one address's range of transactions_ots, whatever the address
  );
  return row!;
}

export interface OtsReuseRow {
  ots_index: number;
  uses: number;
  tx_hash: string;
  height: number;
  tx_index: number;
  ts: number;
  tx_type: string;
}

/** The first `indexes` reused indexes, ascending, each with its first `perIndex` signatures in chain order. */
export async function readOtsReuses(db: Db, address: string, indexes: number, perIndex: number): Promise<OtsReuseRow[]> {
  return db.query<OtsReuseRow>(
    'addresses.ots.reuses',
    sql`SELECT r.ots_index, r.uses, t.tx_hash, t.height, t.tx_index, t.ts, t.tx_type
        FROM (SELECT ots_index, count(*)::int AS uses FROM transactions WHERE ${keyRows(address)}
              GROUP BY ots_index HAVING count(*) > 1 ORDER BY ots_index LIMIT ${indexes}) r
        CROSS JOIN LATERAL (
          SELECT tx_hash, height, tx_index, ts, tx_type FROM transactions
          WHERE ${keyRows(address)} AND ots_index = r.ots_index
          ORDER BY height, tx_index LIMIT ${perIndex}
        ) t
        ORDER BY r.ots_index, t.height, t.tx_index`,
  );
}
