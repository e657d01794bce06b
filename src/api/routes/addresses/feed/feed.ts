/**
 * Pages and totals of the per-address transaction feed (keys.ts says what a row is).
 *
 * Cursor pages start at the cursor's key in every index: constant time at any depth. Offset
 * pages find the row at the offset first: whole UTC days are skipped by their row counts (the
 * address's per-day transaction counts from address_daily, plus the extra rows of its
 * multi-recipient transactions from small partial indexes), then the day that holds the
 * offset is walked transaction by transaction, then the page is read from there like a cursor
 * page. So an offset costs about one day of the address's activity, however deep it is.
 *
 * Totals count logical transactions. Without a type filter they come from rollups: the address's
 * summary for the whole history; for a time range its per-day counts for the whole UTC days and
 * an index count for the partial days at the edges. A type filter counts whichever is smaller,
 * the type or the other types, through the typed indexes of migration 0020.
 */
import sql, { empty, join, raw, type Sql } from 'sql-template-tag';
import type { Db, Store } from '../../../../store/store.ts';
import { TX_TYPES } from '../../../../chain/model.ts';
import { branches, HAS_RECIPIENT_LISTS, rowStream, txStream, type Direction, type FeedQuery, type RowKey } from './keys.ts';
import { loadFeedRows, type FeedRow } from './rows.ts';
import { DAY_SECONDS, formatDay } from '../../../../time.ts';
import { heightRangeOf, heightsAtOrAfter, type TimeRange } from '../../height-range.read.ts';
import type { ApiTuning } from '../../../context.ts';

type FeedTuning = ApiTuning['feed'];

export type { TimeRange } from '../../height-range.read.ts';

/** The feed query for a time range; null when the range holds no block. */
export async function feedQueryFor(
  db: Db,
  base: Omit<FeedQuery, 'fromHeight' | 'toHeight'>,
  range: TimeRange,
): Promise<FeedQuery | null> {
  const heights = await heightRangeOf(db, base.chain, range);
  return heights === null ? null : { ...base, ...heights };
}

// ---- pages ----

interface PageRequest {
  limit: number;
  /** Offset mode: rows skipped. */
  offset: number | null;
  /** Cursor mode: the key of the last row already seen. */
  after: RowKey | null;
}

interface FeedPage {
  rows: FeedRow[];
  hasMore: boolean;
  /** Logical transactions matching the query and its time range. */
  total: number;
}

/** Where a page starts: after a key (exclusive), or at a transaction after skipping some of its rows. */
type Start = { after: RowKey } | { at: readonly [number, number]; skip: number } | { skip: number };

/**
 * A page and the total. Without filters the total is the address's summary figure, read in the
 * page's own statement; otherwise it is counted alongside.
 */
export async function loadFeed(store: Store, q: FeedQuery, range: TimeRange, request: PageRequest, tuning: FeedTuning): Promise<FeedPage> {
  const unfiltered = q.txTypes === null && range.from === null && range.to === null;
  const summaryTotal = sql`(SELECT ${raw(SUMMARY_COUNT[q.direction])} FROM address_summary WHERE chain = ${q.chain} AND address = ${q.address})`;
  const [page, total] = await Promise.all([
    loadFeedPage(store, q, range, request, unfiltered ? summaryTotal : null, tuning),
    unfiltered ? null : countFeed(store, q, range, tuning),
  ]);
  return { rows: page.rows, hasMore: page.hasMore, total: total ?? page.total ?? (await countFeed(store, q, range, tuning)) };
}

async function loadFeedPage(
  store: Store,
  q: FeedQuery,
  range: TimeRange,
  request: PageRequest,
  total: Sql | null,
  tuning: FeedTuning,
): Promise<{ rows: FeedRow[]; hasMore: boolean; total: number | null }> {
  let start: Start;
  if (request.after) start = { after: request.after };
  else if ((request.offset ?? 0) <= tuning.directOffset) start = { skip: request.offset ?? 0 };
  else {
    // A transaction only for the planner settings locateOffset sets locally.
    const located = await store.transaction('addresses.transactions.locate', (tx) => locateOffset(tx, q, range, request.offset!));
    if (located === null) return { rows: [], hasMore: false, total: null };
    start = located;
  }
  const atOrBefore = 'after' in start ? ([start.after[0], start.after[1]] as const) : 'at' in start ? start.at : null;
  const skip = 'skip' in start ? start.skip : 0;
  // Transactions needed: one per row at most, and one more for a cursor's own transaction.
  const rows = rowStream(q, { atOrBefore, txLimit: skip + request.limit + 2 });
  if (rows === null) return { rows: [], hasMore: false, total: null };
  const keyset = 'after' in start ? sql`WHERE (height, tx_index, ri) < (${start.after[0]}, ${start.after[1]}, ${start.after[2]})` : empty;
  const page = sql`(SELECT height, tx_index, ri FROM ${rows} AS s ${keyset}
    ORDER BY height DESC, tx_index DESC, ri DESC LIMIT ${request.limit + 1} ${skip > 0 ? sql`OFFSET ${skip}` : empty})`;
  const found = await loadFeedRows(store, 'addresses.transactions.page', q.chain, page, total);
  return { rows: found.rows.slice(0, request.limit), hasMore: found.rows.length > request.limit, total: found.total };
}

/** The transaction holding the row at `offset` (0-based) and how many of its rows come before it. */
async function locateOffset(db: Db, q: FeedQuery, range: TimeRange, offset: number): Promise<{ at: readonly [number, number]; skip: number } | null> {
  // The statements below must stream rather than hash or sort what they read.
  await db.exec('addresses.transactions.locate_plan', 'SET LOCAL enable_hashagg = off; SET LOCAL enable_sort = off');
  if (q.txTypes !== null) return locateInStream(db, q, offset);
  // Segments newest first: the partial day at time_to, the whole days, the partial day at time_from.
  const fullFrom = range.from === null ? null : Math.ceil(range.from / DAY_SECONDS) * DAY_SECONDS;
  const fullTo = range.to === null ? null : Math.floor(range.to / DAY_SECONDS) * DAY_SECONDS;
  if (fullFrom !== null && fullTo !== null && fullFrom >= fullTo) return locateInStream(db, q, offset);
  let remaining = offset;

  if (range.to !== null && fullTo! < range.to) {
    const head = await sliceQuery(db, q, { from: Math.max(fullTo!, range.from ?? fullTo!), to: range.to });
    if (head !== null) {
      const rows = await countRows(db, head);
      if (remaining < rows) return locateInStream(db, head, remaining);
      remaining -= rows;
    }
  }

  const day = await dayHolding(db, q, fullFrom, fullTo, remaining);
  if (day.found) {
    const fromHeight = maxHeight(q.fromHeight, day.fromHeight);
    const toHeight = minHeight(q.toHeight, day.toHeight);
    return locateInStream(db, { ...q, fromHeight, toHeight }, remaining - day.before);
  }
  remaining -= day.before;
  if (range.from !== null && range.from < fullFrom!) {
    const tail = await sliceQuery(db, q, { from: range.from, to: fullFrom! });
    if (tail !== null) return locateInStream(db, tail, remaining);
  }
  return null;
}

/** `q` narrowed to a time slice (inside the query's own range). */
async function sliceQuery(db: Db, q: FeedQuery, slice: TimeRange): Promise<FeedQuery | null> {
  const narrowed = await feedQueryFor(db, q, slice);
  if (narrowed === null) return null;
  const fromHeight = maxHeight(q.fromHeight, narrowed.fromHeight);
  const toHeight = minHeight(q.toHeight, narrowed.toHeight);
  if (fromHeight !== null && toHeight !== null && toHeight <= fromHeight) return null;
  return { ...q, fromHeight, toHeight };
}

async function countRows(db: Db, q: FeedQuery): Promise<number> {
  const txs = txStream(q);
  if (txs === null) return 0;
  const [row] = await db.query<{ n: number }>('addresses.transactions.count_rows', sql`SELECT coalesce(sum(nrows), 0)::int AS n FROM ${txs} AS t`);
  return row?.n ?? 0;
}

/** Walks the stream transaction by transaction to the one holding row `offset`. */
async function locateInStream(db: Db, q: FeedQuery, offset: number): Promise<{ at: readonly [number, number]; skip: number } | null> {
  const txs = txStream(q, { txLimit: offset + 1 });
  if (txs === null) return null;
  const [hit] = await db.query<{ height: number; tx_index: number; nrows: number; cum: number }>(
    'addresses.transactions.locate',
    sql`SELECT height, tx_index, nrows, cum::int AS cum FROM (
          SELECT height, tx_index, nrows, sum(nrows) OVER (ORDER BY height DESC, tx_index DESC ROWS UNBOUNDED PRECEDING) AS cum
          FROM ${txs} AS t
        ) AS running
        WHERE cum > ${offset}
        ORDER BY height DESC, tx_index DESC LIMIT 1`,
  );
  if (!hit) return null;
  return { at: [hit.height, hit.tx_index], skip: offset - (hit.cum - hit.nrows) };
}

type DayHolding =
  | { found: true; before: number; fromHeight: number | null; toHeight: number | null }
  | { found: false; before: number };

/**
 * The whole UTC day in [fullFrom, fullTo) that holds row `offset`, newest first, with the rows of
 * the newer days (`before`) and its heights; or, when the days end first, all their rows. A day's
 * rows are its transactions (address_daily) plus the extra rows of its multi-recipient ones: a
 * sender's (the partial indexes of 0020 carry the block time) and, where the address is listed
 * more than once in one transaction, a recipient's. Every day has at least as many rows as
 * transactions, so only the days up to where the transaction counts alone pass the offset are
 * read. One statement.
 */
async function dayHolding(db: Db, q: FeedQuery, fullFrom: number | null, fullTo: number | null, offset: number): Promise<DayHolding> {
  const { chain, address, direction } = q;
  const count = raw({ both: 'tx_count', in: 'tx_in', out: 'tx_out' }[direction]);
  const firstHeightOf = (dayNumber: Sql) => sql`(SELECT height FROM blocks WHERE chain = ${chain} AND ts >= (${dayNumber})::bigint * ${DAY_SECONDS} ORDER BY ts, height LIMIT 1)`;
  const upper = q.toHeight === null ? empty : sql`AND height < ${q.toHeight}`;
  const from = sql`(SELECT h FROM start)`;
  const senders = direction === 'in' ? null : sql`
    SELECT ts / ${DAY_SECONDS} AS d, recipient_count - 1 AS n FROM transactions
    WHERE chain = ${chain} AND from_addr = ${address} AND recipient_count > 1 AND height >= ${from} ${upper}
    UNION ALL
    SELECT ts / ${DAY_SECONDS}, recipient_count - 1 FROM transactions
    WHERE chain = ${chain} AND signer_addr = ${address} AND recipient_count > 1 AND height >= ${from} ${upper}`;
  // An address listed k times in one transaction it does not send has k rows there.
  const recipients = direction === 'out' ? null : sql`
    SELECT t.ts / ${DAY_SECONDS} AS d, m.entries + first.entries - 1 AS n
    FROM (SELECT height, tx_index, count(*)::int AS entries FROM tx_recipients
          WHERE chain = ${chain} AND to_addr = ${address} AND recipient_index > 0 AND height >= ${from} ${upper}
          GROUP BY height, tx_index) AS m
    CROSS JOIN LATERAL (SELECT ts, from_addr, signer_addr FROM transactions
                        WHERE chain = ${chain} AND height = m.height AND tx_index = m.tx_index LIMIT 1) AS t
    CROSS JOIN LATERAL (SELECT count(*)::int AS entries FROM tx_recipients
                        WHERE chain = ${chain} AND height = m.height AND tx_index = m.tx_index AND recipient_index = 0
                          AND to_addr = ${address}) AS first
    ${direction === 'both' ? sql`WHERE t.from_addr <> ${address} AND t.signer_addr IS DISTINCT FROM ${address}` : empty}`;
  const extraParts = HAS_RECIPIENT_LISTS[chain] ? [senders, recipients].filter((part): part is Sql => part !== null) : [];
  const [row] = await db.query<{ d: number | null; before: number; from_height: number | null; to_height: number | null }>(
    'addresses.transactions.day_holding',
    sql`WITH daily AS (
          SELECT (day - DATE '1970-01-01') AS d, ${count} AS n FROM address_daily
          WHERE chain = ${chain} AND address = ${address} AND ${count} > 0
            ${fullFrom === null ? empty : sql`AND day >= ${formatDay(fullFrom)}::date`}
            ${fullTo === null ? empty : sql`AND day < ${formatDay(fullTo)}::date`}
        ),
        needed AS (
          SELECT d, n FROM (SELECT d, n, sum(n) OVER (ORDER BY d DESC) - n AS before FROM daily) AS logical
          WHERE before <= ${offset}
        ),
        start AS (SELECT ${firstHeightOf(sql`(SELECT min(d) FROM needed)`)} AS h),
        extra AS (
          SELECT d, sum(n)::int AS n FROM (${extraParts.length === 0 ? sql`SELECT 0 AS d, 0 AS n WHERE false` : join(extraParts, ' UNION ALL ')}) AS x
          GROUP BY d
        ),
        running AS (
          SELECT d, n, sum(n) OVER (ORDER BY d DESC) AS cum
          FROM (SELECT needed.d, needed.n + coalesce(extra.n, 0) AS n FROM needed LEFT JOIN extra ON extra.d = needed.d) AS day_rows
        ),
        holding AS (SELECT d, cum - n AS before FROM running WHERE cum > ${offset} ORDER BY d DESC LIMIT 1)
        SELECT d, before::int AS before, ${firstHeightOf(sql`d`)} AS from_height, ${firstHeightOf(sql`d + 1`)} AS to_height FROM holding
        UNION ALL
        SELECT NULL, coalesce((SELECT max(cum) FROM running), 0)::int, NULL, NULL WHERE NOT EXISTS (SELECT 1 FROM holding)`,
  );
  if (!row || row.d === null) return { found: false, before: row?.before ?? 0 };
  return { found: true, before: row.before, fromHeight: row.from_height, toHeight: row.to_height };
}

const maxHeight = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
const minHeight = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

// ---- totals ----

/** Logical transactions of each feed query, counted through the indexes (one statement). */
async function countByIndex(store: Store, queries: FeedQuery[]): Promise<number[]> {
  if (queries.length === 0) return [];
  const counts = queries.map((q) => {
    const parts = branches(q, { firstRowsOnly: true });
    return parts.length === 0 || (q.fromHeight !== null && q.toHeight !== null && q.toHeight <= q.fromHeight)
      ? sql`0`
      : sql`(SELECT count(*) FROM (SELECT DISTINCT height, tx_index FROM (${join(parts, ' UNION ALL ')}) AS touching) AS txs)`;
  });
  const [row] = await store.query<{ n: number[] }>('addresses.transactions.count_index', sql`SELECT ARRAY[${join(counts, ', ')}]::int[] AS n`);
  return row?.n ?? queries.map(() => 0);
}

/** Distinct transactions among the first `cap` index entries of `q`, and how many entries were read. */
function probe(q: FeedQuery, cap: number): Sql {
  const parts = branches(q, { firstRowsOnly: true });
  if (parts.length === 0) return sql`(SELECT 0 AS n, 0 AS entries)`;
  return sql`(SELECT count(DISTINCT (height, tx_index))::int AS n, count(*)::int AS entries FROM (
    SELECT height, tx_index FROM (${join(parts, ' UNION ALL ')}) AS touching LIMIT ${cap}
  ) AS probe)`;
}

const SUMMARY_COUNT: Record<Direction, string> = { both: 'tx_count', in: 'tx_received_count', out: 'tx_sent_count' };
const DAILY_COUNT: Record<Direction, string> = { both: 'tx_count', in: 'tx_in', out: 'tx_out' };

/** Total logical transactions matching the query and its time range. */
async function countFeed(store: Store, q: FeedQuery, range: TimeRange, tuning: FeedTuning): Promise<number> {
  if (q.txTypes === null) return countAllTypes(store, q, range);
  // The type's own transactions when they are few; otherwise all less the other types'. Both
  // sides are probed in one statement, reading at most `cap` index entries each.
  const cap = tuning.typeCountProbe;
  const others = TX_TYPES[q.chain].filter((t) => !q.txTypes!.includes(t));
  // Over the whole history the unfiltered total is the summary's, read in the same statement.
  const whole = range.from === null && range.to === null;
  const [row] = await store.query<{ own_n: number; own_entries: number; rest: [number, number] | null; all_types: number | null }>(
    'addresses.transactions.count_probe',
    sql`SELECT own.n AS own_n, own.entries AS own_entries,
               CASE WHEN own.entries >= ${cap} THEN (SELECT ARRAY[rest.n, rest.entries] FROM ${probe({ ...q, txTypes: others }, cap)} AS rest) END AS rest,
               ${whole ? sql`(SELECT ${raw(SUMMARY_COUNT[q.direction])} FROM address_summary WHERE chain = ${q.chain} AND address = ${q.address})` : sql`NULL::integer`} AS all_types
        FROM ${probe(q, cap)} AS own`,
  );
  if (row && row.own_entries < cap) return row.own_n;
  if (row?.rest && row.rest[1] < cap) {
    const all = whole ? (row.all_types ?? 0) : await countAllTypes(store, { ...q, txTypes: null }, range);
    return all - row.rest[0];
  }
  return (await countByIndex(store, [q]))[0] ?? 0;
}

/**
 * Logical transactions of all types in the range: whole UTC days from address_daily; a partly
 * covered day by index, counting whichever is shorter, the covered part or the rest of the day
 * (then the day's total less the rest).
 */
async function countAllTypes(store: Store, q: FeedQuery, range: TimeRange): Promise<number> {
  const { chain, address, direction } = q;
  if (range.from === null && range.to === null) {
    const [row] = await store.query<{ n: number }>(
      'addresses.transactions.count_summary',
      sql`SELECT ${raw(SUMMARY_COUNT[direction])} AS n FROM address_summary WHERE chain = ${chain} AND address = ${address}`,
    );
    return row?.n ?? 0;
  }
  const pieces = partialDays(range);
  const fullFrom = range.from === null ? null : Math.ceil(range.from / DAY_SECONDS) * DAY_SECONDS;
  const fullTo = range.to === null ? null : Math.floor(range.to / DAY_SECONDS) * DAY_SECONDS;
  const hasFullDays = fullFrom === null || fullTo === null || fullFrom < fullTo;
  // What to count by index: [from, to) intervals, each with its sign.
  const intervals: { from: number; to: number; sign: 1 | -1 }[] = [];
  const wholeDays: number[] = [];
  for (const piece of pieces) {
    if (piece.to - piece.from <= DAY_SECONDS / 2) {
      intervals.push({ from: piece.from, to: piece.to, sign: 1 });
    } else {
      wholeDays.push(piece.day);
      if (piece.from > piece.day) intervals.push({ from: piece.day, to: piece.from, sign: -1 });
      if (piece.to < piece.day + DAY_SECONDS) intervals.push({ from: piece.to, to: piece.day + DAY_SECONDS, sign: -1 });
    }
  }
  const times = [...new Set(intervals.flatMap((i) => [i.from, i.to]))];
  const column = raw(DAILY_COUNT[direction]);
  const [[daily], heights] = await Promise.all([
    store.query<{ full: number; days: number }>(
      'addresses.transactions.count_daily',
      sql`SELECT coalesce(sum(${column}) FILTER (WHERE ${hasFullDays}
                   ${fullFrom === null ? empty : sql`AND day >= ${formatDay(fullFrom)}::date`}
                   ${fullTo === null ? empty : sql`AND day < ${formatDay(fullTo)}::date`}), 0)::int AS full,
                 coalesce(sum(${column}) FILTER (WHERE day = ANY(${wholeDays.map(formatDay)}::date[])), 0)::int AS days
          FROM address_daily
          WHERE chain = ${chain} AND address = ${address}`,
      { reusePlan: true }, // the address's days, a primary-key range
    ),
    heightsAtOrAfter(store, chain, times),
  ]);
  const heightAt = new Map(times.map((t, i) => [t, heights[i] ?? null]));
  const slices = intervals.map((i) => ({ ...q, fromHeight: heightAt.get(i.from) ?? null, toHeight: heightAt.get(i.to) ?? null }));
  // No block at or after an interval's start: the interval is empty.
  const counts = await countByIndex(store, slices.filter((s) => s.fromHeight !== null));
  let next = 0;
  let n = (daily?.full ?? 0) + (daily?.days ?? 0);
  slices.forEach((slice, i) => {
    if (slice.fromHeight !== null) n += intervals[i]!.sign * (counts[next++] ?? 0);
  });
  return n;
}

/** The days that `range` covers only in part, each with the part [from, to) it covers. */
function partialDays(range: TimeRange): { day: number; from: number; to: number }[] {
  const pieces: { day: number; from: number; to: number }[] = [];
  const { from, to } = range;
  if (from !== null && to !== null && to <= from) return pieces;
  const fromDay = from === null ? null : Math.floor(from / DAY_SECONDS) * DAY_SECONDS;
  const toDay = to === null ? null : Math.floor(to / DAY_SECONDS) * DAY_SECONDS;
  if (from !== null && from > fromDay!) pieces.push({ day: fromDay!, from, to: to !== null && toDay === fromDay ? to : fromDay! + DAY_SECONDS });
  if (to !== null && to > toDay! && !(from !== null && toDay === fromDay && from > fromDay!)) {
    pieces.push({ day: toDay!, from: from !== null && toDay === fromDay ? from : toDay!, to });
  }
  return pieces;
}
