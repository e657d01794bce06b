/** The read of GET /{chain}/tokens: one page of the chain's tokens in one of three orders, by keyset. */
import sql, { empty, raw, type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../chain/chains.ts';
import type { Db } from '../../../store/store.ts';
import type { TokenSummaryRow } from './detail.read.ts';

export const TOKEN_SORTS = ['holders', 'transfers', 'newest'] as const;
export type TokenSort = (typeof TOKEN_SORTS)[number];

/** The token_stats column each order is by (descending; ties by contract, descending): each has its index (migration 0092). */
const SORT_COLUMN: Record<TokenSort, string> = { holders: 'holders', transfers: 'transfers', newest: 'first_height' };

/** A name or symbol prefix as a range of folded text: [from, below), below null when nothing is above. */
export interface PrefixRange {
  from: string;
  below: string | null;
}

export interface TokensQuery {
  chain: ChainId;
  sort: TokenSort;
  prefix: PrefixRange | null;
  /** The cursor's position: the sort column's value and the contract; null = the first page. */
  after: readonly [number, string] | null;
  /** Rows read: a page and one more (whether more follow). */
  limit: number;
}

/** A column of token_contracts (`c`) in the prefix indexes' folded form, within `range`. */
function inRange(column: 'name' | 'symbol', range: PrefixRange): Sql {
  const folded = raw(`lower(c.${column} COLLATE "C")`);
  return sql`${folded} ~>=~ ${range.from} ${range.below === null ? empty : sql`AND ${folded} ~<~ ${range.below}`}`;
}

/**
 * One page of tokens and the count of the list, in one statement. Without a prefix the page is the
 * sort's index of token_stats read backwards from the cursor (limit + 1 entries at any depth) and
 * the count is the chain's tokens. With one, the tokens whose name or symbol has the prefix come
 * from the prefix indexes of token_contracts first (a pow token whose creation is not stored has no
 * name and never matches); they are counted, and their page is sorted among them. The metadata and
 * the first transfer's block are looked up per row of the page.
 */
export async function readTokens(db: Db, q: TokensQuery): Promise<{ rows: TokenSummaryRow[]; total: number }> {
  const { chain, prefix, after } = q;
  const column = raw(`s.${SORT_COLUMN[q.sort]}`);
  const keyset = after === null ? empty : sql`AND (${column}, s.contract) < (${after[0]}, ${after[1]})`;
  const matches = prefix === null
    ? empty
    : sql`WITH matches AS MATERIALIZED (
            SELECT c.address FROM token_contracts c WHERE c.chain = ${chain} AND ${inRange('name', prefix)}
            UNION
            SELECT c.address FROM token_contracts c WHERE c.chain = ${chain} AND ${inRange('symbol', prefix)})`;
  const listed = prefix === null ? sql`token_stats s` : sql`matches m JOIN token_stats s ON s.chain = ${chain} AND s.contract = m.address`;
  const found = await db.query<TokenSummaryRow & { total: number }>(
    prefix === null ? `tokens.list.${q.sort}` : `tokens.list.${q.sort}.prefix`,
    sql`${matches}
        SELECT (SELECT count(*) FROM ${listed} WHERE s.chain = ${chain}) AS total, p.*,
               c.name, c.symbol, c.decimals,
               (SELECT b.ts FROM blocks b WHERE b.chain = ${chain} AND b.height = p.first_height) AS first_ts
        FROM (SELECT 1) AS one
        LEFT JOIN LATERAL (
          SELECT s.contract, s.supply::text AS supply, s.holders, s.transfers, s.first_height, ${column} AS sort_key
          FROM ${listed}
          WHERE s.chain = ${chain} ${keyset}
          ORDER BY ${column} DESC, s.contract DESC
          LIMIT ${q.limit}
        ) AS p ON true
        -- By key per row of the page: a join could read every token's metadata.
        LEFT JOIN LATERAL (SELECT c.name, c.symbol, c.decimals FROM token_contracts c WHERE c.chain = ${chain} AND c.address = p.contract) AS c ON true
        ORDER BY p.sort_key DESC, p.contract DESC`,
    { reusePlan: prefix === null }, // without a prefix: an index range from its newest end
  );
  return { rows: found.filter((row) => row.contract !== null), total: found[0]?.total ?? 0 };
}
