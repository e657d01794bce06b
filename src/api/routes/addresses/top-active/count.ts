/**
 * The leaderboard's `total`, from precomputed counts wherever it can be (chain_stats, the balance
 * buckets of address_rank_buckets, the substring counts of address_grams), or else from a count
 * over a candidate set known to be small; and, from the same figures, how to read the page.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../../../chain/chains.ts';
import { GRAM_MAX, rankBucket, rankBucketRange } from '../../../../rollups/addresses/address-ranks.ts';
import type { Db } from '../../../../store/store.ts';
import type { ApiTuning } from '../../../context.ts';
import { balanceCandidates, whereOf, type Filters, type QMode } from './filters.ts';

async function countAll(db: Db, f: Filters, q: QMode): Promise<number> {
  const [row] = await db.query<{ n: number }>('addresses.top.count', sql`SELECT count(*) AS n FROM address_summary WHERE ${whereOf(f, q)}`);
  return row?.n ?? 0;
}

/** Addresses with balance >= `min`, from the balance buckets plus a range inside the bucket of `min`. */
async function countAtLeast(db: Db, chain: ChainId, min: bigint): Promise<number> {
  const bucket = rankBucket(min);
  const range = rankBucketRange(bucket);
  const inside = range.exact
    ? sql`coalesce(sum(addresses) FILTER (WHERE bucket = ${bucket}::bigint), 0)::bigint`
    : sql`(SELECT count(*) FROM address_summary WHERE chain = ${chain} AND balance >= ${min.toString()}::numeric AND balance < ${range.hi.toString()}::numeric)`;
  const [row] = await db.query<{ above: number; inside: number }>(
    'addresses.top.count_balance',
    sql`SELECT coalesce(sum(addresses) FILTER (WHERE bucket > ${bucket}::bigint), 0)::bigint AS above, ${inside} AS inside
        FROM address_rank_buckets WHERE chain = ${chain} AND metric = 'balance'`,
  );
  return (row?.above ?? 0) + (row?.inside ?? 0);
}

/** How many addresses of a population contain each of `grams` (GRAM_MAX characters or fewer); 'q' counts the population. */
async function countGrams(db: Db, chain: ChainId, population: 'all' | 'holders', grams: string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ gram: string; n: number }>(
    'addresses.top.count_gram',
    sql`SELECT gram, addresses AS n FROM address_grams WHERE chain = ${chain} AND population = ${population} AND gram = ANY(${grams}::text[])`,
  );
  return new Map(rows.map((r) => [r.gram, Number(r.n)]));
}

/** The stretches of `q` that address_grams counts: q itself when short enough, else each of its GRAM_MAX-character windows. */
function gramPieces(q: string): string[] {
  return q.length <= GRAM_MAX ? [q] : Array.from({ length: q.length - GRAM_MAX + 1 }, (_, i) => q.slice(i, i + GRAM_MAX));
}

/** The excluded addresses that would otherwise match, to take off a precomputed count. */
async function countExcludedMatches(db: Db, f: Filters): Promise<number> {
  if (f.excluded.length === 0) return 0;
  const [row] = await db.query<{ n: number }>(
    'addresses.top.count_excluded',
    sql`SELECT count(*) AS n FROM address_summary WHERE ${whereOf({ ...f, excluded: [] })} AND address = ANY(${f.excluded}::text[])`,
  );
  return row?.n ?? 0;
}

/**
 * How a page is read: `order` scans the order's index and skips to the offset (the matches are
 * dense enough to meet early); `balance` collects the few addresses above a high threshold from
 * the balance index and sorts them; `trigram` collects the few matches of `q` from the trigram
 * index and sorts them. `candidates` bounds how many rows the balance plan collects, so that the
 * planner reads them from the balance index (statistics cannot tell it how few there are).
 */
export type Read = { kind: 'order' } | { kind: 'balance'; candidates: number } | { kind: 'trigram' };

/** The total of the filters (null when the trigram read counts it along) and how to read the page at `offset`. */
export async function planPage(
  db: Db,
  f: Filters,
  offset: number,
  pageSize: number,
  tuning: ApiTuning['topActive'],
): Promise<{ total: number | null; read: Read }> {
  const { smallSet, orderScan } = tuning;
  // A high balance threshold leaves few candidates, whatever else is asked: count and sort them.
  if (f.minBalance !== null) {
    const atLeast = await countAtLeast(db, f.chain, f.minBalance);
    const read: Read = { kind: 'balance', candidates: atLeast };
    if (atLeast <= smallSet) {
      if (!f.q) return { total: atLeast - (await countExcludedMatches(db, f)), read };
      const [row] = await db.query<{ n: number }>(
        'addresses.top.count_balance_q',
        sql`SELECT count(*) AS n FROM (${balanceCandidates(f, sql`address`, atLeast)}) c`,
      );
      return { total: row?.n ?? 0, read };
    }
    if (!f.q) return { total: atLeast - (await countExcludedMatches(db, f)), read: { kind: 'order' } };
    if (f.minBalance !== 1n) {
      // Many holders above the threshold: a q shared by few addresses narrows first, and the trigram
      // read counts its matches above the threshold as it collects them. Only a q that many
      // addresses share is counted along the balance index.
      const pieces = gramPieces(f.q);
      const counts = await countGrams(db, f.chain, 'all', pieces);
      const rarest = Math.min(...pieces.map((g) => counts.get(g) ?? 0));
      if (f.q.length >= 3 && rarest <= smallSet) return { total: null, read: { kind: 'trigram' } };
      return { total: await countAll(db, f, 'scan'), read: { kind: 'order' } };
    }
  } else if (!f.q) {
    const [row] = await db.query<{ n: number }>('addresses.top.count_all', sql`SELECT address_count AS n FROM chain_stats WHERE chain = ${f.chain}`);
    return { total: (row?.n ?? 0) - (await countExcludedMatches(db, f)), read: { kind: 'order' } };
  }

  // A substring, on all addresses or on holders: counted from address_grams when short enough.
  const q = f.q!;
  const population = f.minBalance === 1n ? 'holders' : 'all';
  const pieces = gramPieces(q);
  const counts = await countGrams(db, f.chain, population, [...pieces, 'q']);
  const everyone = counts.get('q') ?? 0;
  // Matches number at most the count of the rarest piece of q.
  const bound = Math.min(...pieces.map((g) => counts.get(g) ?? 0));
  if (q.length > GRAM_MAX) {
    // Few candidates: the trigram read counts them as it collects them. Many (a common stretch such as
    // a descriptor): counted row by row, and paged in index order.
    if (bound <= smallSet) return { total: null, read: { kind: 'trigram' } };
    return { total: await countAll(db, f, 'scan'), read: { kind: 'order' } };
  }
  const total = bound - (await countExcludedMatches(db, f));
  // Rows an index-order read passes to reach the page, at this density of matches.
  const passed = total === 0 ? Infinity : ((offset + pageSize) * everyone) / total;
  return { total, read: passed <= orderScan || q.length < 3 ? { kind: 'order' } : { kind: 'trigram' } };
}
