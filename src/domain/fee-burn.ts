/**
 * The pos fee burn (EIP-1559: base fee per gas × gas used, per block) over a window ending at the
 * latest block (./window.ts): whole UTC days from chain_daily, the partial first day from the
 * blocks (at most half a day of them). `planck_24h` of /pos/fees/burned/summary and
 * `fee_burned_24h_planck` of /analytics/dashboard/summary are both this figure over 24 hours.
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';
import { dayCover, type TipWindow } from './window.ts';

/** The burn of `chain` over `w` as an SQL expression (numeric), for a query that reads it beside other figures. */
export function burnedInSql(chain: ChainId, w: TipWindow): Sql {
  const c = dayCover(w);
  const edge = c.edge ?? { from: 1, to: 0, sign: 1 };
  return sql`((SELECT coalesce(sum(burned), 0) FROM chain_daily WHERE chain = ${chain} AND day BETWEEN ${c.firstDay}::date AND ${c.lastDay}::date)
             + ${edge.sign}::int * (SELECT coalesce(sum(burned), 0) FROM blocks WHERE chain = ${chain} AND ts BETWEEN ${edge.from}::bigint AND ${edge.to}::bigint))`;
}

/** The burn of `chain` over `w`, in its smallest unit. */
export async function burnedIn(db: Db, chain: ChainId, w: TipWindow): Promise<bigint> {
  const [row] = await db.query<{ burned: string }>('domain.burned_in_window', sql`SELECT ${burnedInSql(chain, w)}::text AS burned`, {
    reusePlan: true, // a primary-key range of chain_daily and at most half a day of blocks by (chain, ts)
  });
  return BigInt(row?.burned ?? '0');
}
