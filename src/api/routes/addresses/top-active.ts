/**
 * GET /api/v1/{chain}/addresses/top/active: the address leaderboard, with every filter and sort
 * of the spec (docs/metrics.md, "Leaderboard"). Answers stay fast on a million addresses:
 * - `total` comes from precomputed counts wherever it can (chain_stats, the balance buckets of
 *   address_rank_buckets, the substring counts of address_grams), or else from a count over a
 *   candidate set known to be small;
 * - a page is found by address alone on the leaderboard's index (index-only where the filters
 *   allow), then joined back, so skipped rows cost an index entry each;
 * - a deep page of the tx_count or balance order starts at the bucket that holds its first row.
 */
import sql, { empty, join, raw, type Sql } from 'sql-template-tag';
import { Type, type Static } from 'typebox';
import { parseAddress } from '../../../chain/addresses.ts';
import { SENTINELS, type ChainId } from '../../../chain/chains.ts';
import { GRAM_MAX, isGramText, rankBucket, rankBucketRange } from '../../../rollups/address-ranks.ts';
import type { Db } from '../../../store/store.ts';
import type { ApiContext, RouteApp } from '../../context.ts';
import { addDays, formatDay, formatTimestampOrNull } from '../../../time.ts';
import { invalidParam } from '../../problem.ts';
import { BooleanQuery, ChainPathParams, IntegerQuery, isTrue, Nullable, NullableAmount, NullableTimestamp, StringEnum, STANDARD_ERRORS } from '../../schemas/common.ts';
import { coinsToUnits } from './profile/amounts.ts';
import { WHALE_COINS } from './profile/tiers.ts';
import { tipTime } from '../../../rollups/tip.ts';

export const SORT_FIELDS = ['tx_count', 'balance', 'total_received', 'total_sent', 'total_fees_paid', 'first_seen', 'first_seen_asc', 'last_seen_asc'] as const;
export type SortField = (typeof SORT_FIELDS)[number];
const SORT_VALUES = [...SORT_FIELDS, ...SORT_FIELDS.map((field) => `-${field}` as const)] as const;

/** The order of each field (with the address as tie-break), the same whether `-` is given or not. */
const ORDER: Record<SortField, { column: string; order: string }> = {
  tx_count: { column: 'tx_count', order: 'tx_count DESC, address' },
  balance: { column: 'balance', order: 'balance DESC, address' },
  total_received: { column: 'total_received', order: 'total_received DESC, address' },
  total_sent: { column: 'total_sent', order: 'total_sent DESC, address' },
  total_fees_paid: { column: 'total_fees_paid', order: 'total_fees_paid DESC, address' },
  first_seen: { column: 'first_seen', order: 'first_seen DESC NULLS LAST, address' },
  first_seen_asc: { column: 'first_seen', order: 'first_seen ASC NULLS LAST, address' },
  last_seen_asc: { column: 'last_seen', order: 'last_seen ASC NULLS LAST, address' },
};

export const TopActiveQuery = Type.Object({
  page: IntegerQuery({ minimum: 1, default: 1, description: 'Page number, from 1.' }),
  page_size: IntegerQuery({ minimum: 1, maximum: 100, default: 25, description: 'Rows per page (1 to 100).' }),
  q: Type.Optional(Type.String({ description: 'Case-insensitive substring of the address (pos: a leading 0x or Z stands for the Q prefix).' })),
  with_labels: BooleanQuery('Fill label and label_category (primary label)'),
  with_delta_30d: BooleanQuery('Fill received_30d and sent_30d (the 30 UTC days ending with the latest block’s day)'),
  positive_only: BooleanQuery('Only addresses with a strictly positive balance'),
  exclude_sentinel: BooleanQuery('Leave out the sentinels (pow coinbase sentinel, pos zero address)'),
  exclude: Type.Optional(Type.String({ description: 'Comma-separated addresses to leave out (any accepted form; matched exactly in canonical form).' })),
  min_balance_pct: Type.Optional(
    Type.Number({ minimum: 0, maximum: 100, description: 'Keep addresses with balance >= this percent of the sum of all balances; ignored when whale_only is set.' }),
  ),
  whale_only: BooleanQuery('Only addresses holding at least 100,000 coins'),
  sort: Type.Optional(
    StringEnum(SORT_VALUES, {
      default: '-tx_count',
      description: '<field> or -<field>; both give the field’s order: descending, except first_seen_asc and last_seen_asc (ascending).',
    }),
  ),
});

export const AddressSummaryRow = Type.Object({
  address: Type.String(),
  chain: Nullable(Type.String()),
  network: Nullable(Type.String()),
  balance: NullableAmount,
  total_received: NullableAmount,
  total_sent: NullableAmount,
  total_fees_paid: NullableAmount,
  tx_count: Nullable(Type.Integer()),
  tx_received_count: Nullable(Type.Integer()),
  tx_sent_count: Nullable(Type.Integer()),
  first_seen: NullableTimestamp,
  last_seen: NullableTimestamp,
  label: Nullable(Type.String({ description: 'Filled only with with_labels=true.' })),
  label_category: Nullable(Type.String({ description: 'Filled only with with_labels=true.' })),
  received_30d: { ...NullableAmount, description: 'Filled only with with_delta_30d=true: value received in the 30 UTC days ending with the latest block’s day.' },
  sent_30d: { ...NullableAmount, description: 'Filled only with with_delta_30d=true: value sent in that window, fees excluded.' },
});

export const TopActiveResponse = Type.Object({
  addresses: Type.Array(AddressSummaryRow),
  total: Type.Integer({ description: 'Addresses matching the filters.' }),
  sort_by: Type.String({ description: 'The field the page is ordered by (the sort parameter without its sign).' }),
  page: Type.Integer(),
  page_size: Type.Integer(),
  q: Nullable(Type.String()),
  chain: Nullable(Type.String()),
  network: Nullable(Type.String()),
});

type TopActiveQueryT = Static<typeof TopActiveQuery>;

/**
 * Plan thresholds: candidate sets up to `smallSet` addresses are counted and sorted in full rather
 * than read in index order; a substring page is read in index order when that passes at most
 * `orderScan` rows; pages from offset `seekFrom` of the tx_count and balance orders start at their
 * bucket. (Tests change them to exercise every plan on small chains.)
 */
export const topActiveTuning = { smallSet: 20_000, seekFrom: 2_000, orderScan: 100_000 };

export interface Filters {
  chain: ChainId;
  /** Lowercase substring (only address characters), or null for none. */
  q: string | null;
  /** Keep balance >= this (smallest units), or null. */
  minBalance: bigint | null;
  /** Canonical addresses left out. */
  excluded: string[];
}

/** The q parameter as a lowercase substring of canonical addresses ('' = no filter). */
export function normaliseQ(chain: ChainId, q: string | undefined): string {
  let text = (q ?? '').toLowerCase();
  if (chain === 'pos') {
    if (text.startsWith('0x')) text = 'q' + text.slice(2);
    else if (text.startsWith('z')) text = 'q' + text.slice(1);
  }
  return text;
}

function parseExclude(chain: ChainId, raw: string | undefined): string[] {
  if (!raw) return [];
  const out = new Set<string>();
  for (const part of raw.split(',')) {
    const text = part.trim();
    if (!text) continue;
    const parsed = parseAddress(chain, text);
    if (!parsed.ok) throw invalidParam('exclude', `contains ${JSON.stringify(text.slice(0, 90))}, which is not a ${chain} address: ${parsed.reason}`);
    out.add(parsed.address);
  }
  return [...out];
}

/** `pct` (a JSON number) as an exact fraction num/den. */
function decimalFraction(pct: number): { num: bigint; den: bigint } {
  const [mantissa, exponent = '0'] = pct.toString().toLowerCase().split('e');
  const [whole, fraction = ''] = mantissa!.split('.');
  let num = BigInt(whole! + fraction);
  let den = 10n ** BigInt(fraction.length);
  const e = Number(exponent);
  if (e >= 0) num *= 10n ** BigInt(e);
  else den *= 10n ** BigInt(-e);
  return { num, den };
}

/** The smallest balance that is at least `pct` percent of `supply`. */
export function pctThreshold(pct: number, supply: bigint): bigint {
  if (supply <= 0n) return 0n;
  const { num, den } = decimalFraction(pct);
  const a = supply * num;
  const b = 100n * den;
  return (a + b - 1n) / b;
}

/**
 * How `q` is written: `indexed` lets the trigram index find the candidates (and only it: the
 * chain test is written so that no (chain, …) index applies); `scan` checks it row by row on an
 * index read for another reason (the order, or a balance range), where it costs nothing.
 */
type QMode = 'indexed' | 'scan';

function whereOf(f: Filters, q: QMode = 'scan'): Sql {
  const parts: Sql[] = [q === 'indexed' && f.q ? sql`chain || '' = ${f.chain}` : sql`chain = ${f.chain}`];
  if (f.minBalance !== null) parts.push(sql`balance >= ${f.minBalance.toString()}::numeric`);
  if (f.q) parts.push(q === 'indexed' ? sql`address ILIKE ${`%${f.q}%`}` : sql`lower(address) LIKE ${`%${f.q}%`}`);
  if (f.excluded.length > 0) parts.push(sql`address <> ALL(${f.excluded}::text[])`);
  return join(parts, ' AND ');
}

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
type Read = { kind: 'order' } | { kind: 'balance'; candidates: number } | { kind: 'trigram' };

/** The total of the filters (null when the trigram read counts it along) and how to read the page at `offset`. */
async function planPage(db: Db, f: Filters, offset: number, pageSize: number): Promise<{ total: number | null; read: Read }> {
  const { smallSet, orderScan } = topActiveTuning;
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
    if (f.minBalance !== 1n) return { total: await countAll(db, f, 'scan'), read: { kind: 'order' } };
  } else if (!f.q) {
    const [row] = await db.query<{ n: number }>('addresses.top.count_all', sql`SELECT address_count AS n FROM chain_stats WHERE chain = ${f.chain}`);
    return { total: (row?.n ?? 0) - (await countExcludedMatches(db, f)), read: { kind: 'order' } };
  }

  // A substring, on all addresses or on holders: counted from address_grams when short enough.
  const q = f.q!;
  const population = f.minBalance === 1n ? 'holders' : 'all';
  const pieces = q.length <= GRAM_MAX ? [q] : Array.from({ length: q.length - GRAM_MAX + 1 }, (_, i) => q.slice(i, i + GRAM_MAX));
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

/**
 * The addresses above the threshold, read from the balance index, with the other filters. There are
 * `candidates` of them (the limit leaves room for addresses that crossed it since they were counted).
 */
function balanceCandidates(f: Filters, columns: Sql, candidates: number): Sql {
  return sql`SELECT ${columns} FROM address_summary WHERE ${whereOf(f, 'scan')} ORDER BY balance DESC LIMIT ${2 * candidates + 100}`;
}

/**
 * For a deep page of the tx_count or balance order without other filters: a condition that starts
 * the scan at the bucket holding row `offset`, and the offset left inside it.
 */
async function seek(db: Db, f: Filters, field: SortField, offset: number): Promise<{ condition: Sql; offset: number } | null> {
  if (offset < topActiveTuning.seekFrom || f.q || f.excluded.length > 0) return null;
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

interface SummaryRow {
  address: string;
  balance: string;
  total_received: string;
  total_sent: string;
  total_fees_paid: string;
  tx_count: number;
  tx_received_count: number;
  tx_sent_count: number;
  first_seen: number | null;
  last_seen: number | null;
  label?: string | null;
  label_category?: string | null;
  received_30d?: string;
  sent_30d?: string;
}

export async function loadTopActive(ctx: ApiContext, chain: ChainId, query: TopActiveQueryT): Promise<Static<typeof TopActiveResponse>> {
  const db = ctx.store;
  const sort = query.sort ?? '-tx_count';
  const field = sort.replace(/^-/, '') as SortField;
  const q = normaliseQ(chain, query.q);
  const excluded = parseExclude(chain, query.exclude);
  if (isTrue(query.exclude_sentinel)) excluded.push(...SENTINELS[chain].filter((s) => !excluded.includes(s)));
  const echo = { sort_by: field, page: query.page, page_size: query.page_size, q: query.q ?? null, chain, network: ctx.network(chain) };

  let minBalance: bigint | null = null;
  if (isTrue(query.whale_only)) {
    minBalance = coinsToUnits(chain, WHALE_COINS);
  } else if (query.min_balance_pct !== undefined) {
    const [row] = await db.query<{ supply: string }>(
      'addresses.top.supply',
      sql`SELECT coalesce(sum(balance), 0) AS supply FROM address_rank_buckets WHERE chain = ${chain} AND metric = 'balance'`,
    );
    minBalance = pctThreshold(query.min_balance_pct, BigInt(row?.supply ?? 0));
  }
  if (isTrue(query.positive_only) && (minBalance === null || minBalance < 1n)) minBalance = 1n;
  const filters: Filters = { chain, q: q || null, minBalance, excluded };

  // A substring with a character no address has matches nothing.
  if (filters.q && (!isGramText(filters.q) || filters.q.length > 79)) return { addresses: [], total: 0, ...echo };
  const offset = (query.page - 1) * query.page_size;
  const plan = await planPage(db, filters, offset, query.page_size);
  let total = plan.total;
  if (total !== null && offset >= total) return { addresses: [], total, ...echo };

  const order = raw(ORDER[field].order);
  const sortColumn = raw(ORDER[field].column);
  let keys: Sql;
  if (plan.read.kind === 'order') {
    const start = await seek(db, filters, field, offset);
    keys = sql`SELECT address FROM address_summary WHERE ${whereOf(filters)} ${start?.condition ?? empty}
               ORDER BY ${order} LIMIT ${query.page_size} OFFSET ${start?.offset ?? offset}`;
  } else if (plan.read.kind === 'balance') {
    keys = sql`SELECT address FROM (${balanceCandidates(filters, sql`address, ${sortColumn}`, plan.read.candidates)}) m
               ORDER BY ${order} LIMIT ${query.page_size} OFFSET ${offset}`;
  } else {
    // One read of the trigram index: the matches, counted, and the page of them.
    const [found] = await db.query<{ total: number; keys: string[] }>(
      'addresses.top.trigram',
      sql`WITH m AS MATERIALIZED (SELECT address, ${sortColumn} FROM address_summary WHERE ${whereOf(filters, 'indexed')})
          SELECT (SELECT count(*) FROM m) AS total,
                 ARRAY(SELECT address FROM m ORDER BY ${order} LIMIT ${query.page_size} OFFSET ${offset}) AS keys`,
    );
    total ??= found?.total ?? 0;
    keys = sql`SELECT unnest(${found?.keys ?? []}::text[]) AS address`;
  }
  if (total === null || offset >= total) return { addresses: [], total: total ?? 0, ...echo };

  const withLabels = isTrue(query.with_labels);
  const withDelta = isTrue(query.with_delta_30d);
  let fromDay: string | null = null;
  if (withDelta) {
    const tip = await tipTime(db, chain, 'addresses.top.tip');
    fromDay = tip !== null ? addDays(formatDay(tip), -29) : null;
  }
  const rows = await db.query<SummaryRow>(
    'addresses.top.page',
    sql`WITH keys AS (${keys})
        SELECT s.address, s.balance, s.total_received, s.total_sent, s.total_fees_paid, s.tx_count, s.tx_received_count,
               s.tx_sent_count, s.first_seen, s.last_seen
               ${withLabels ? sql`, l.label, l.category AS label_category` : empty}
               ${withDelta ? sql`, coalesce(w.received, 0) AS received_30d, coalesce(w.sent, 0) AS sent_30d` : empty}
        FROM keys k
        JOIN address_summary s ON s.chain = ${chain} AND s.address = k.address
        ${withLabels ? sql`LEFT JOIN labels l ON l.chain = ${chain} AND l.address = s.address AND l.is_primary` : empty}
        ${withDelta
          ? sql`LEFT JOIN LATERAL (SELECT sum(d.received) AS received, sum(d.sent) AS sent FROM address_daily d
                                   WHERE d.chain = ${chain} AND d.address = s.address AND d.day >= ${fromDay ?? '9999-12-31'}::date) w ON true`
          : empty}
        ORDER BY ${raw(ORDER[field].order.replace(/(^|, )([a-z_]+)/g, '$1s.$2'))}`,
  );
  const network = ctx.network(chain);
  return {
    addresses: rows.map((r) => ({
      address: r.address,
      chain,
      network,
      balance: r.balance,
      total_received: r.total_received,
      total_sent: r.total_sent,
      total_fees_paid: r.total_fees_paid,
      tx_count: r.tx_count,
      tx_received_count: r.tx_received_count,
      tx_sent_count: r.tx_sent_count,
      first_seen: formatTimestampOrNull(r.first_seen),
      last_seen: formatTimestampOrNull(r.last_seen),
      label: withLabels ? (r.label ?? null) : null,
      label_category: withLabels ? (r.label_category ?? null) : null,
      received_30d: withDelta ? (r.received_30d ?? '0') : null,
      sent_30d: withDelta ? (r.sent_30d ?? '0') : null,
    })),
    total,
    ...echo,
  };
}

export function topActiveRoute(app: RouteApp, ctx: ApiContext): void {
  app.get(
    '/top/active',
    {
      schema: {
        tags: ['addresses'],
        operationId: 'getTopActiveAddresses',
        summary: 'Address leaderboard: filters, sorts and offset pages',
        params: ChainPathParams,
        querystring: TopActiveQuery,
        response: { 200: TopActiveResponse, ...STANDARD_ERRORS },
      },
    },
    async (request) => loadTopActive(ctx, request.params.chain, request.query),
  );
}
