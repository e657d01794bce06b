/** The read of GET /{chain}/tokens/{token}/daily: a token's days within a window. */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';

export interface TokenDayRow {
  day: string;
  transfers: number;
  holders_delta: number;
}

/** The day of the chain's latest block and of the token's first transfer (null before either). */
export async function readTokenSpan(db: Db, chain: ChainId, contract: string): Promise<{ tip_day: string | null; first_day: string | null }> {
  const [row] = await db.query<{ tip_day: string | null; first_day: string | null }>(
    'tokens.daily.span',
    sql`SELECT (SELECT (DATE '1970-01-01' + (ts / 86400)::int)::text FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1) AS tip_day,
               (SELECT day::text FROM token_daily WHERE chain = ${chain} AND contract = ${contract} ORDER BY day LIMIT 1) AS first_day`,
    { reusePlan: true }, // the tip's key and the token's first day (a primary-key range read from its start)
  );
  return row ?? { tip_day: null, first_day: null };
}

/** The token's rows of token_daily from `from` on (a primary-key range): at most one per day of the window. */
export function readTokenDays(db: Db, chain: ChainId, contract: string, from: string): Promise<TokenDayRow[]> {
  return db.query<TokenDayRow>(
    'tokens.daily',
    sql`SELECT day::text AS day, transfers, holders_delta FROM token_daily
        WHERE chain = ${chain} AND contract = ${contract} AND day >= ${from}::date ORDER BY day`,
    { reusePlan: true }, // a primary-key range
  );
}
