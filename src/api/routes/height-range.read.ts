/**
 * A time range as a range of heights, for the lists filtered by `time_from`/`time_to` (the address
 * feed, the block list): block times rise with height, so the blocks in [from, to) are those from
 * the first block at or after `from` up to, not including, the first block at or after `to`.
 */
import sql, { join, raw } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';

export interface TimeRange {
  /** Unix seconds, inclusive; null = unbounded. */
  from: number | null;
  /** Unix seconds, exclusive; null = unbounded. */
  to: number | null;
}

/** Heights in [fromHeight, toHeight); null = unbounded. */
export interface HeightRange {
  fromHeight: number | null;
  toHeight: number | null;
}

/** The first height whose block time is at or after each time (null: no such block yet). */
export async function heightsAtOrAfter(db: Db, chain: ChainId, times: readonly number[]): Promise<(number | null)[]> {
  if (times.length === 0) return [];
  const [row] = await db.query<Record<string, number | null>>(
    'heights.at_or_after',
    sql`SELECT ${join(
      times.map((t, i) => sql`(SELECT height FROM blocks WHERE chain = ${chain} AND ts >= ${t} ORDER BY ts, height LIMIT 1) AS ${raw(`h${i}`)}`),
      ', ',
    )}`,
    { reusePlan: true }, // the first entry of an index range each
  );
  return times.map((_, i) => row?.[`h${i}`] ?? null);
}

/** The heights of the blocks in `range`; null when the range holds no block. */
export async function heightRangeOf(db: Db, chain: ChainId, range: TimeRange): Promise<HeightRange | null> {
  const times = [range.from, range.to].filter((t): t is number => t !== null);
  const heights = await heightsAtOrAfter(db, chain, times);
  let fromHeight: number | null = null;
  let toHeight: number | null = null;
  if (range.from !== null) {
    fromHeight = heights[0] ?? null;
    if (fromHeight === null) return null; // nothing at or after time_from yet
  }
  if (range.to !== null) toHeight = heights[range.from !== null ? 1 : 0] ?? null; // null: every block is before time_to
  if (fromHeight !== null && toHeight !== null && toHeight <= fromHeight) return null;
  return { fromHeight, toHeight };
}
