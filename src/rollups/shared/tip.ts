/** The time of a chain's indexed tip: what day-bounded rollups and 24-hour windows are measured from. */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';

/** The tip's block time as a scalar subquery (NULL before any block), to embed in a larger statement. */
export function tipTimeSql(chain: ChainId): Sql {
  return sql`(SELECT ts FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1)`;
}

/** The tip's block time (Unix seconds), or null before any block. */
export async function tipTime(db: Db, chain: ChainId, label: string): Promise<number | null> {
  const [row] = await db.query<{ ts: number | null }>(label, sql`SELECT ${tipTimeSql(chain)} AS ts`);
  return row?.ts ?? null;
}
