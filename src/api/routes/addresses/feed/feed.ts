/**
 * Pages and totals of the per-address transaction feed (see keys.ts for what a row is).
 *
 * Totals count logical transactions. Without a type filter they come from rollups: the address's
 * summary for the whole history, its per-day counts for whole UTC days of a time range, and an
 * index count only for the partial days at the edges of the range. A type filter counts through
 * the typed indexes of migration 0020.
 */
import sql, { empty, join, raw } from 'sql-template-tag';
import type { Db } from '../../../../store/store.ts';
import type { ChainId } from '../../../../chain/chains.ts';
import { keyBranches, keyStream, type Direction, type FeedQuery, type RowKey } from './keys.ts';
import { loadFeedRows, type FeedRow } from './rows.ts';

const DAY = 86_400;

export interface TimeRange {
  /** Unix seconds, inclusive; null = unbounded. */
  from: number | null;
  /** Unix seconds, exclusive; null = unbounded. */
  to: number | null;
}

/** The first height whose block time is at or after each time (null: no such block yet). */
export async function heightsAtOrAfter(db: Db, chain: ChainId, times: readonly number[]): Promise<(number | null)[]> {
  if (times.length === 0) return [];
  const [row] = await db.query<Record<string, number | null>>(
    'addresses.transactions.heights',
    sql`SELECT ${join(
      times.map((t, i) => sql`(SELECT height FROM blocks WHERE chain = ${chain} AND ts >= ${t} ORDER BY ts, height LIMIT 1) AS ${raw(`h${i}`)}`),
      ', ',
    )}`,
  );
  return times.map((_, i) => row?.[`h${i}`] ?? null);
}

/** A feed query over a time range: null when the range holds no block at all. */
export async function feedQueryFor(
  db: Db,
  base: Omit<FeedQuery, 'fromHeight' | 'toHeight'>,
  range: TimeRange,
): Promise<FeedQuery | null> {
  const times = [range.from, range.to].filter((t): t is number => t !== null);
  const heights = await heightsAtOrAfter(db, base.chain, times);
  let fromHeight: number | null = null;
  let toHeight: number | null = null;
  let next = 0;
  if (range.from !== null) {
    fromHeight = heights[next++] ?? null;
    if (fromHeight === null) return null; // nothing at or after time_from
  }
  if (range.to !== null) toHeight = heights[next] ?? null; // null: every block is before time_to
  if (fromHeight !== null && toHeight !== null && toHeight <= fromHeight) return null;
  return { ...base, fromHeight, toHeight };
}

export interface PageRequest {
  limit: number;
  /** Offset mode: rows skipped. */
  offset: number | null;
  /** Cursor mode: the key of the last row already seen. */
  after: RowKey | null;
}

export interface FeedPage {
  rows: FeedRow[];
  hasMore: boolean;
}

/** One page of full rows: limit + 1 keys from the merged indexes, the rows of the first limit. */
export async function loadFeedPage(db: Db, q: FeedQuery, request: PageRequest): Promise<FeedPage> {
  const after = request.after;
  const stream = keyStream(q, { atOrBefore: after ? [after[0], after[1]] : null });
  const keyset = after ? sql`WHERE (height, tx_index, ri) < (${after[0]}, ${after[1]}, ${after[2]})` : empty;
  const page = sql`(SELECT height, tx_index, ri FROM ${stream} AS s ${keyset}
    ORDER BY height DESC, tx_index DESC, ri DESC
    LIMIT ${request.limit + 1} ${request.offset ? sql`OFFSET ${request.offset}` : empty})`;
  const rows = await loadFeedRows(db, 'addresses.transactions.page', q.chain, page);
  return { rows: rows.slice(0, request.limit), hasMore: rows.length > request.limit };
}

/** Logical transactions of the feed in the query's height range, counted through the indexes. */
export async function countByIndex(db: Db, q: FeedQuery): Promise<number> {
  const branches = keyBranches(q, { firstRowsOnly: true });
  if (branches.length === 0) return 0;
  const [row] = await db.query<{ n: number }>(
    'addresses.transactions.count_index',
    sql`SELECT count(*)::int AS n FROM (
          SELECT DISTINCT height, tx_index FROM (${join(branches, ' UNION ALL ')}) AS touching
        ) AS txs`,
  );
  return row?.n ?? 0;
}

const SUMMARY_COUNT: Record<Direction, string> = { both: 'tx_count', in: 'tx_received_count', out: 'tx_sent_count' };
const DAILY_COUNT: Record<Direction, string> = { both: 'tx_count', in: 'tx_in', out: 'tx_out' };

/** Total logical transactions matching the query and time range. */
export async function countFeed(db: Db, q: FeedQuery, range: TimeRange): Promise<number> {
  if (q.txType !== null) return countByIndex(db, q);
  const { chain, address, direction } = q;
  if (range.from === null && range.to === null) {
    const [row] = await db.query<{ n: number }>(
      'addresses.transactions.count_summary',
      sql`SELECT ${raw(SUMMARY_COUNT[direction])} AS n FROM address_summary WHERE chain = ${chain} AND address = ${address}`,
    );
    return row?.n ?? 0;
  }
  // Whole UTC days inside [from, to) from address_daily; the partial days at the edges by index.
  const fullFrom = range.from === null ? null : Math.ceil(range.from / DAY) * DAY;
  const fullTo = range.to === null ? null : Math.floor(range.to / DAY) * DAY;
  if (fullFrom !== null && fullTo !== null && fullFrom >= fullTo) {
    return countTimeSlice(db, q, range);
  }
  const day = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);
  const [daily] = await db.query<{ n: number }>(
    'addresses.transactions.count_daily',
    sql`SELECT coalesce(sum(${raw(DAILY_COUNT[direction])}), 0)::int AS n FROM address_daily
        WHERE chain = ${chain} AND address = ${address}
          ${fullFrom === null ? empty : sql`AND day >= ${day(fullFrom)}::date`}
          ${fullTo === null ? empty : sql`AND day < ${day(fullTo)}::date`}`,
  );
  let n = daily?.n ?? 0;
  if (range.from !== null && fullFrom !== null && range.from < fullFrom) n += await countTimeSlice(db, q, { from: range.from, to: fullFrom });
  if (range.to !== null && fullTo !== null && fullTo < range.to) n += await countTimeSlice(db, q, { from: fullTo, to: range.to });
  return n;
}

async function countTimeSlice(db: Db, q: FeedQuery, range: TimeRange): Promise<number> {
  const slice = await feedQueryFor(db, q, range);
  return slice === null ? 0 : countByIndex(db, slice);
}
