/**
 * address_rank_buckets and address_grams: what ranks, percentiles, supply shares and leaderboard
 * totals read instead of counting a million addresses (docs/metrics.md).
 *
 * - address_rank_buckets: per metric (balance, tx_count, age = first appearance), how many
 *   addresses fall in each bucket of values and, for balance, their sum. A rank is the sum of the
 *   buckets above the address's plus a count inside its own bucket, a bounded index range.
 * - address_grams: per population (all addresses, holders), how many addresses contain each
 *   string of one to four characters: the count of a short substring search, which no index
 *   can give quickly because such strings match a large share of all addresses.
 *
 * Both derive from address_summary rows, so they are maintained around it: `captureRanksBefore`
 * takes out the contributions of the addresses a delta touches (as they are before it), and
 * `applyRanksAfter` puts back their contributions as they are after it (after the repair, on a
 * revert: emptied addresses are gone by then). Whatever the summary did, the two agree with it.
 */
import sql, { type Sql } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { Db } from '../../store/store.ts';
import { SUMMARY_DELTAS } from './address-summary.ts';
import type { Rollup, RollupStep } from '../engine/rollup.ts';

/** Age bucket of addresses without a first appearance: after every hour. Same as quarry_age_bucket. */
export const NO_AGE_BUCKET = 999_999_999_999;

/**
 * The bucket of an amount or count, as `quarry_rank_bucket` in migration 0030: -1 below zero, 0
 * for zero, 100 + v below 10, 200 + v below 100, otherwise digits * 100 + first two digits.
 */
export function rankBucket(value: bigint): number {
  if (value < 0n) return -1;
  if (value === 0n) return 0;
  if (value < 10n) return 100 + Number(value);
  const text = value.toString();
  return text.length * 100 + Number(text.slice(0, 2));
}

/**
 * The values a bucket holds: `exact` when every value in it is equal (zero, below 100), else the
 * half-open range [lo, hi). Bucket -1 (negative values) is [-infinity, 0): lo is null.
 */
export function rankBucketRange(bucket: number): { exact: boolean; lo: bigint | null; hi: bigint } {
  if (bucket === -1) return { exact: false, lo: null, hi: 0n };
  if (bucket === 0) return { exact: true, lo: 0n, hi: 1n };
  const digits = Math.floor(bucket / 100);
  const lead = BigInt(bucket % 100);
  if (digits <= 2) return { exact: true, lo: lead, hi: lead + 1n };
  const unit = 10n ** BigInt(digits - 2);
  return { exact: false, lo: lead * unit, hi: (lead + 1n) * unit };
}

/** The bucket of a first appearance (its UTC hour), as `quarry_age_bucket`. */
export function ageBucket(appeared: number | null): number {
  return appeared === null ? NO_AGE_BUCKET : Math.floor(appeared / 3600);
}

/** Characters of canonical addresses, lowercased: the hex digits and the q of the prefix. */
const GRAM_ALPHABET = '0123456789abcdefq';
const SYMBOLS = GRAM_ALPHABET.length;
const CODE = new Int8Array(128).fill(-1);
for (let i = 0; i < SYMBOLS; i++) CODE[GRAM_ALPHABET.charCodeAt(i)] = i;
/** Substrings up to this length are counted (address_grams). */
export const GRAM_MAX = 4;
/** Slots of the strings of each length: strings of length n take SYMBOLS^n slots from OFFSET[n]. */
const OFFSET = [0];
for (let n = 1; n <= GRAM_MAX + 1; n++) OFFSET[n] = OFFSET[n - 1]! + (n === 1 ? 0 : SYMBOLS ** (n - 1));
const GRAM_SLOTS = OFFSET[GRAM_MAX + 1]!;

/** Whether `text` (lowercase) is made of characters an address can contain. */
export function isGramText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 128 || CODE[c]! < 0) return false;
  }
  return true;
}

function gramOfSlot(slot: number): string {
  let n = GRAM_MAX;
  while (slot < OFFSET[n]!) n--;
  let code = slot - OFFSET[n]!;
  let text = '';
  for (let i = 0; i < n; i++) {
    text = GRAM_ALPHABET[code % SYMBOLS]! + text;
    code = Math.floor(code / SYMBOLS);
  }
  return text;
}

/** Adds `sign` to `counts` for every distinct string of one to GRAM_MAX characters of `address`. */
function addGrams(counts: Int32Array, seen: Int32Array, stamp: number, address: string, sign: number): void {
  const text = address.toLowerCase();
  // codes[n]: the code of the string of length n ending at the current character, or -1.
  const codes = [0, -1, -1, -1, -1];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    const c = ch < 128 ? CODE[ch]! : -1;
    for (let n = GRAM_MAX; n >= 1; n--) {
      const prefix = codes[n - 1]!;
      codes[n] = c >= 0 && prefix >= 0 ? prefix * SYMBOLS + c : -1;
      if (codes[n]! >= 0) {
        const slot = OFFSET[n]! + codes[n]!;
        if (seen[slot] !== stamp) {
          seen[slot] = stamp;
          counts[slot]! += sign;
        }
      }
    }
  }
}

/** The contributions to each metric's buckets of the addresses listed in `source` (a relation with `address`), as they are now. */
function contributions(chain: ChainId, sign: 1 | -1, source: Sql): Sql {
  return sql`INSERT INTO address_rank_buckets AS b (chain, metric, bucket, addresses, balance)
             SELECT ${chain}, m.metric, m.bucket, ${sign}::int * count(*), ${sign}::int * coalesce(sum(m.balance), 0)
             FROM ${source} d
             JOIN address_summary s ON s.chain = ${chain} AND s.address = d.address
             CROSS JOIN LATERAL (VALUES ('balance', quarry_rank_bucket(s.balance), s.balance),
                                        ('tx_count', quarry_rank_bucket(s.tx_count), NULL::numeric),
                                        ('age', quarry_age_bucket(s.appeared), NULL::numeric)) AS m(metric, bucket, balance)
             WHERE m.bucket IS NOT NULL -- an unknown balance is in no balance bucket: it is not ranked
             GROUP BY m.metric, m.bucket
             ON CONFLICT (chain, metric, bucket) DO UPDATE SET
               addresses = b.addresses + excluded.addresses, balance = b.balance + excluded.balance
             RETURNING metric, bucket, addresses`;
}

interface BucketCount {
  metric: string;
  bucket: number;
  addresses: number;
}

/** Buckets that fell to zero in the first pass and are still empty after the second are removed. */
async function removeEmptyBuckets(db: Db, chain: ChainId, touched: BucketCount[]): Promise<void> {
  const empty = touched.filter((b) => Number(b.addresses) === 0);
  if (empty.length === 0) return;
  await db.query(
    'rollups.ranks.remove_empty',
    sql`DELETE FROM address_rank_buckets b USING unnest(${empty.map((e) => e.metric)}::text[], ${empty.map((e) => e.bucket)}::bigint[]) AS u(metric, bucket)
        WHERE b.chain = ${chain} AND b.metric = u.metric AND b.bucket = u.bucket AND b.addresses = 0`,
  );
}

/** What `captureRanksBefore` hands to `applyRanksAfter`: the buckets it left at zero. */
interface RanksCapture {
  zeroed: BucketCount[];
}

/** Before address_summary changes: takes out the touched addresses and remembers which existed and held coins. */
async function captureRanksBefore(db: Db, chain: ChainId, touched: Sql): Promise<RanksCapture> {
  // One statement: which addresses existed and held coins, and their contributions taken out.
  const removed = await db.query<BucketCount>(
    'rollups.ranks.remove',
    sql`WITH before AS (
          INSERT INTO ranks_before (address, holder)
          SELECT s.address, coalesce(s.balance > 0, false) AS holder FROM ${touched} d
          JOIN address_summary s ON s.chain = ${chain} AND s.address = d.address)
        ${contributions(chain, -1, touched)}`,
  );
  return { zeroed: removed.filter((b) => Number(b.addresses) === 0) };
}

/** After address_summary changed (and was repaired, on a revert): puts the touched addresses back. */
async function applyRanksAfter(db: Db, chain: ChainId, touched: Sql, capture: RanksCapture): Promise<void> {
  const added = await db.query<BucketCount>('rollups.ranks.add', contributions(chain, 1, touched));
  await removeEmptyBuckets(db, chain, [...capture.zeroed, ...added]);

  // Addresses that appeared or disappeared, or started or stopped holding coins.
  const moved = await db.query<{ address: string; was: boolean; was_holder: boolean; present: boolean; holder: boolean }>(
    'rollups.ranks.transitions',
    sql`SELECT d.address, b.address IS NOT NULL AS was, coalesce(b.holder, false) AS was_holder,
               s.address IS NOT NULL AS present, coalesce(s.balance > 0, false) AS holder
        FROM ${touched} d
        LEFT JOIN ranks_before b ON b.address = d.address
        LEFT JOIN address_summary s ON s.chain = ${chain} AND s.address = d.address
        WHERE (b.address IS NULL) <> (s.address IS NULL) OR coalesce(b.holder, false) <> coalesce(s.balance > 0, false)`,
  );
  await addGramTransitions(db, chain, moved);
}

/**
 * Recounts the buckets and gram counts of `chain` from address_summary as it stands: after
 * `quarry refresh`, which rebuilds address_summary rows without this module seeing what they
 * held before.
 */
async function rebuildRanks(db: Db, chain: ChainId): Promise<void> {
  await db.query('rollups.ranks.clear', sql`DELETE FROM address_rank_buckets WHERE chain = ${chain}`);
  await db.query('rollups.ranks.clear_grams', sql`DELETE FROM address_grams WHERE chain = ${chain}`);
  await db.query(
    'rollups.ranks.rebuild',
    sql`INSERT INTO address_rank_buckets (chain, metric, bucket, addresses, balance)
        SELECT ${chain}, m.metric, m.bucket, count(*), coalesce(sum(m.balance), 0)
        FROM address_summary s
        CROSS JOIN LATERAL (VALUES ('balance', quarry_rank_bucket(s.balance), s.balance),
                                   ('tx_count', quarry_rank_bucket(s.tx_count), NULL::numeric),
                                   ('age', quarry_age_bucket(s.appeared), NULL::numeric)) AS m(metric, bucket, balance)
        WHERE s.chain = ${chain} AND m.bucket IS NOT NULL
        GROUP BY m.metric, m.bucket`,
  );
  const present = await db.query<{ address: string; was: boolean; was_holder: boolean; present: boolean; holder: boolean }>(
    'rollups.ranks.rebuild_grams',
    sql`SELECT address, false AS was, false AS was_holder, true AS present, coalesce(balance > 0, false) AS holder FROM address_summary WHERE chain = ${chain}`,
  );
  await addGramTransitions(db, chain, present);
}

async function addGramTransitions(
  db: Db,
  chain: ChainId,
  moved: { address: string; was: boolean; was_holder: boolean; present: boolean; holder: boolean }[],
): Promise<void> {
  if (moved.length === 0) return;
  const all = new Int32Array(GRAM_SLOTS);
  const holders = new Int32Array(GRAM_SLOTS);
  const seen = new Int32Array(GRAM_SLOTS);
  let stamp = 0;
  for (const row of moved) {
    if (row.was !== row.present) addGrams(all, seen, ++stamp, row.address, row.present ? 1 : -1);
    if (row.was_holder !== row.holder) addGrams(holders, seen, ++stamp, row.address, row.holder ? 1 : -1);
  }
  const populations: string[] = [];
  const grams: string[] = [];
  const counts: number[] = [];
  for (const [population, array] of [['all', all], ['holders', holders]] as const) {
    array.forEach((n, slot) => {
      if (n !== 0) {
        populations.push(population);
        grams.push(gramOfSlot(slot));
        counts.push(n);
      }
    });
  }
  if (grams.length === 0) return;
  // A first load counts every gram at once: into an empty table they go by COPY, cheaper than a
  // merge that then reads them all back, and than parsing them as three arrays of parameters.
  if (grams.length >= FIRST_LOAD_GRAMS && (await gramsEmpty(db, chain))) {
    await db.copyRows('rollups.ranks.grams_first', 'address_grams', ['chain', 'population', 'gram', 'addresses'], grams.map((gram, i) => [chain, populations[i], gram, counts[i]]));
    return;
  }
  const rows = sql`SELECT ${chain}, population, gram, addresses
                   FROM unnest(${populations}::text[], ${grams}::text[], ${counts}::bigint[]) AS u(population, gram, addresses)`;
  // Only the grams that fell to zero come back: they are removed.
  const emptied = await db.query<{ population: string; gram: string }>(
    'rollups.ranks.grams',
    sql`WITH merged AS (
          INSERT INTO address_grams AS g (chain, population, gram, addresses) ${rows}
          ON CONFLICT (chain, population, gram) DO UPDATE SET addresses = g.addresses + excluded.addresses
          RETURNING population, gram, addresses)
        SELECT population, gram FROM merged WHERE addresses = 0`,
  );
  if (emptied.length > 0) {
    await db.query(
      'rollups.ranks.grams_empty',
      sql`DELETE FROM address_grams g USING unnest(${emptied.map((e) => e.population)}::text[], ${emptied.map((e) => e.gram)}::text[]) AS u(population, gram)
          WHERE g.chain = ${chain} AND g.population = u.population AND g.gram = u.gram AND g.addresses = 0`,
    );
  }
}

/** Gram counts in one step from which an empty table is worth checking for (a followed block brings a few hundred). */
const FIRST_LOAD_GRAMS = 10_000;

async function gramsEmpty(db: Db, chain: ChainId): Promise<boolean> {
  const [row] = await db.query<{ empty: boolean }>('rollups.ranks.grams_none', sql`SELECT NOT EXISTS (SELECT 1 FROM address_grams WHERE chain = ${chain}) AS empty`);
  return row?.empty ?? false;
}

const putBack = (db: Db, step: RollupStep) => applyRanksAfter(db, step.chain, step.rowsOf(SUMMARY_DELTAS), step.carried.get('address_ranks') as RanksCapture);

export const addressRanks: Rollup = {
  name: 'address_ranks',
  part: 'addresses',
  tables: ['address_rank_buckets', 'address_grams'],
  scratchTables: [{ name: 'ranks_before', columns: 'address text, holder boolean' }],
  // The step's addresses: those of address_summary's deltas.
  reads: [SUMMARY_DELTAS],
  async before(db, step) {
    step.carried.set('address_ranks', await captureRanksBefore(db, step.chain, step.rowsOf(SUMMARY_DELTAS)));
  },
  // After address_summary changed, and after its repair on a revert.
  after: ['address_summary'],
  apply: putBack,
  repair: putBack,
  afterRefresh: (db, chain) => rebuildRanks(db, chain),
};
