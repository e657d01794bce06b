/**
 * The addresses of a leaderboard page, in order: found by address alone on the leaderboard's
 * index (index-only where the filters allow), so skipped rows cost an index entry each; a deep page
 * of the tx_count or balance order starts at the bucket that holds its first row.
 */
import sql, { empty, raw, type Sql } from 'sql-template-tag';
import { rankBucketRange } from '../../../../rollups/addresses/address-ranks.ts';
import type { Db } from '../../../../store/store.ts';
import type { ApiTuning } from '../../../context.ts';
import type { Read } from './count.ts';
import { balanceCandidates, whereOf, type Filters } from './filters.ts';
import { ORDER, type SortField } from './params.ts';

/**
 * For a deep page of the tx_count or balance order without other filters: a condition that starts
 * the scan at the bucket holding row `offset`, and the offset left inside it.
 */
async function seek(db: Db, f: Filters, field: SortField, offset: number, seekFrom: number): Promise<{ condition: Sql; offset: number } | null> {
  if (offset < seekFrom || f.q || f.excluded.length > 0) return null;
  if (!(field === 'tx_count' && f.minBalance === null) && field !== 'balance') return null;
  const rows = await db.query<{ bucket: number; addresses: number }>(
    'addresses.top.seek',
    sql`SELECT bucket, addresses FROM address_rank_buckets WHERE chain = ${f.chain} AND metric = ${field} ORDER BY bucket DESC`,
  );
  let before = 0;
  for (const row of rows) {
    if (before + row.addresses > offset) {
      if (before === 0) return null;
      const hi = rankBucketRange(row.bucket).hi;
      return field === 'tx_count'
        ? { condition: sql`AND tx_count < ${Number(hi)}::int`, offset: offset - before }
        : { condition: sql`AND balance < ${hi.toString()}::numeric`, offset: offset - before };
    }
    before += row.addresses;
  }
  return null;
}

interface PageKeys {
  /** A statement yielding the page's addresses (column `address`). */
  keys: Sql;
  /** The total, when the read counted it along (the trigram read). */
  counted: number | null;
}

/** The statement of the page's addresses, as `read` says to find them. */
export async function pageKeys(
  db: Db,
  f: Filters,
  field: SortField,
  read: Read,
  offset: number,
  pageSize: number,
  tuning: ApiTuning['topActive'],
): Promise<PageKeys> {
  const order = raw(ORDER[field].order);
  const sortColumn = raw(ORDER[field].column);
  if (read.kind === 'order') {
    const start = await seek(db, f, field, offset, tuning.seekFrom);
    return {
      keys: sql`SELECT address FROM address_summary WHERE ${whereOf(f)} ${start?.condition ?? empty}
                ORDER BY ${order} LIMIT ${pageSize} OFFSET ${start?.offset ?? offset}`,
      counted: null,
    };
  }
  if (read.kind === 'balance') {
    return {
      keys: sql`SELECT address FROM (${balanceCandidates(f, sql`address, ${sortColumn}`, read.candidates)}) m
                ORDER BY ${order} LIMIT ${pageSize} OFFSET ${offset}`,
      counted: null,
    };
  }
  // One read of the trigram index: the matches, counted, and the page of them.
  const [found] = await db.query<{ total: number; keys: string[] }>(
    'addresses.top.trigram',
    sql`WITH m AS MATERIALIZED (SELECT address, ${sortColumn} FROM address_summary WHERE ${whereOf(f, 'indexed')})
        SELECT (SELECT count(*) FROM m) AS total,
               ARRAY(SELECT address FROM m ORDER BY ${order} LIMIT ${pageSize} OFFSET ${offset}) AS keys`,
  );
  return { keys: sql`SELECT unnest(${found?.keys ?? []}::text[]) AS address`, counted: found?.total ?? 0 };
}
