/**
 * The per-address transaction feed in SQL.
 *
 * A row is one recipient of a transaction: key (height, tx_index, ri), where ri is the index in
 * the transaction's recipient list (pow transfers) and 0 for a transaction without one. The rows
 * touching an address are
 *   - every row of a transaction it sends (from_addr) or signs (signer_addr, a pow slave key);
 *   - otherwise the rows in which it receives: its recipient-list entries, or the single row of a
 *     transaction whose to_addr (or created contract) it is.
 * So a self-transfer is one row, and the sender of a payout to 50 addresses has 50 rows.
 *
 * Each way of taking part is a branch over its own per-address index, read index-only and in
 * (height, tx_index) order: PostgreSQL merge-appends the branches, groups them per transaction
 * (`txStream`) and expands each transaction into its rows (`rowStream`), stopping once a page is
 * full. A sender's row count comes from small partial indexes of multi-recipient transactions
 * (migration 0020): no heap access decides which rows exist.
 */
import sql, { empty, join, raw, type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../../chain/chains.ts';

export const DIRECTIONS = ['both', 'in', 'out'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/**
 * What the canonical model (src/chain/model.ts) allows on each chain: a recipient list and a
 * signer other than the sender only on pow, a created contract only on pos. Branches that can
 * hold nothing on a chain are left out (fewer to plan and to merge).
 */
export const HAS_RECIPIENT_LISTS: Record<ChainId, boolean> = { pow: true, pos: false };
const HAS_SIGNERS: Record<ChainId, boolean> = { pow: true, pos: false };
const HAS_CREATED_CONTRACTS: Record<ChainId, boolean> = { pow: false, pos: true };

/** Most entries of one recipient list (QRL transfers have at most 100 recipients). */
const MAX_RECIPIENTS = 100;

/**
 * Transaction types that carry a recipient list: pow transfer and transfer_token (canonical model).
 * A source that filled in lists for another type (QRL's multi_sig_spend has one) must add it here
 * for the type filter to find its entries.
 */
const RECIPIENT_LIST_TYPES: readonly string[] = ['transfer', 'transfer_token'];
/** transfer_token list entries all move 0 native value (the tokens move in token_transfers). */
const ZERO_AMOUNT_TYPES: readonly string[] = ['transfer_token'];

export interface FeedQuery {
  chain: ChainId;
  address: string;
  direction: Direction;
  /** Only transactions of these types (checked against the chain's types); null = all. */
  txTypes: readonly string[] | null;
  /** Heights in [fromHeight, toHeight); null = unbounded. */
  fromHeight: number | null;
  toHeight: number | null;
}

export type RowKey = readonly [height: number, txIndex: number, ri: number];

interface BranchOptions {
  /** Only transactions at or before this (height, tx_index). */
  atOrBefore?: readonly [number, number] | null;
  /**
   * Counting transactions: only the first row of each matters, and in no particular order (the
   * branches then need not come in index order, which lets a type list use its index).
   */
  firstRowsOnly?: boolean;
  /**
   * At most this many (newest) transactions. Besides bounding the work, it makes PostgreSQL plan
   * the grouping for a few rows (streaming the merged indexes) rather than for all of them
   * (hashing the address's whole history).
   */
  txLimit?: number;
}

function bounds(q: FeedQuery, options: BranchOptions, alias = ''): Sql {
  const h = raw(`${alias}height`);
  const i = raw(`${alias}tx_index`);
  return sql`${q.fromHeight === null ? empty : sql`AND ${h} >= ${q.fromHeight}`}
    ${q.toHeight === null ? empty : sql`AND ${h} < ${q.toHeight}`}
    ${options.atOrBefore ? sql`AND (${h}, ${i}) <= (${options.atOrBefore[0]}, ${options.atOrBefore[1]})` : empty}`;
}

/** A type condition that keeps the branch's index order: equality for one type (an array would not). */
function typeIs(types: readonly string[] | null): Sql {
  if (types === null) return empty;
  return types.length === 1 ? sql`AND tx_type = ${types[0]}` : sql`AND tx_type = ANY(${[...types]}::text[])`;
}

/**
 * One `(SELECT height, tx_index, sends, rc, ri ... ORDER BY height DESC, tx_index DESC)` per way
 * the address takes part: `sends` marks the sender/signer branches, `rc` is the number of rows of
 * the transaction where a sender branch knows it (1 otherwise), `ri` is the recipient index of a
 * recipient-list entry (null on other branches).
 */
export function branches(q: FeedQuery, options: BranchOptions = {}): Sql[] {
  const { chain, address, txTypes } = q;
  // With a transaction limit each branch gets one too (an entry per transaction, or up to
  // MAX_RECIPIENTS of a recipient list's entries per transaction): the planner then reads each
  // index in order from its newest end instead of fetching and sorting the address's entries.
  const limit = options.txLimit === undefined ? empty : sql`LIMIT ${options.txLimit}`;
  const listLimit = options.txLimit === undefined ? empty : sql`LIMIT ${options.txLimit * MAX_RECIPIENTS}`;
  const order = options.firstRowsOnly ? empty : sql`ORDER BY height DESC, tx_index DESC ${limit}`;
  const listOrder = options.firstRowsOnly ? empty : sql`ORDER BY height DESC, tx_index DESC ${listLimit}`;
  const out: Sql[] = [];
  const listTypes = !HAS_RECIPIENT_LISTS[chain] ? [] : txTypes === null ? null : txTypes.filter((t) => RECIPIENT_LIST_TYPES.includes(t));

  if (q.direction !== 'in') {
    for (const who of HAS_SIGNERS[chain] ? [raw('from_addr'), raw('signer_addr')] : [raw('from_addr')]) {
      out.push(sql`(SELECT height, tx_index, true AS sends, 1 AS rc, NULL::integer AS ri FROM transactions
        WHERE chain = ${chain} AND ${who} = ${address} ${typeIs(txTypes)} ${bounds(q, options)} ${order})`);
      if (!options.firstRowsOnly && (listTypes === null || listTypes.length > 0)) {
        out.push(sql`(SELECT height, tx_index, true AS sends, recipient_count AS rc, NULL::integer AS ri FROM transactions
          WHERE chain = ${chain} AND ${who} = ${address} AND recipient_count > 1 ${typeIs(listTypes)} ${bounds(q, options)} ${order})`);
      }
    }
  }

  if (q.direction !== 'out') {
    out.push(sql`(SELECT height, tx_index, false AS sends, 1 AS rc, NULL::integer AS ri FROM transactions
      WHERE chain = ${chain} AND to_addr = ${address} ${typeIs(txTypes)} ${bounds(q, options)} ${order})`);
    if (HAS_CREATED_CONTRACTS[chain] && (txTypes === null || txTypes.includes('contract_create'))) {
      out.push(sql`(SELECT height, tx_index, false AS sends, 1 AS rc, NULL::integer AS ri FROM transactions
        WHERE chain = ${chain} AND contract_address = ${address} ${typeIs(txTypes)} ${bounds(q, options)} ${order})`);
    }
    if (listTypes === null) {
      out.push(sql`(SELECT height, tx_index, false AS sends, 1 AS rc, recipient_index AS ri FROM tx_recipients
        WHERE chain = ${chain} AND to_addr = ${address} ${bounds(q, options)} ${listOrder})`);
    } else if (listTypes.length > 0) {
      // The type is the transaction's: looked up per entry, in index order (a correlated lookup,
      // never a join over all the address's entries). When only zero-value types are asked for,
      // a partial index of the zero-value entries narrows the walk (migration 0020).
      const zeroOnly = listTypes.every((t) => ZERO_AMOUNT_TYPES.includes(t));
      const typeOf = sql`(SELECT t.tx_type FROM transactions t WHERE t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index)`;
      out.push(sql`(SELECT r.height, r.tx_index, false AS sends, 1 AS rc, r.recipient_index AS ri FROM tx_recipients r
        WHERE r.chain = ${chain} AND r.to_addr = ${address}
          AND ${typeOf} ${listTypes.length === 1 ? sql`= ${listTypes[0]}` : sql`= ANY(${[...listTypes]}::text[])`}
          ${zeroOnly ? sql`AND r.amount = 0` : empty} ${bounds(q, options, 'r.')}
        ${options.firstRowsOnly ? empty : sql`ORDER BY r.height DESC, r.tx_index DESC ${listLimit}`})`);
    }
  }
  return out;
}

/**
 * The transactions of the feed, newest first, one row each: (height, tx_index, sends, rc, ris,
 * nrows), where `ris` lists the address's recipient-list entries and `nrows` is how many feed
 * rows the transaction has for the address. Null when no branch applies.
 */
export function txStream(q: FeedQuery, options: BranchOptions = {}): Sql | null {
  const parts = branches(q, options);
  if (parts.length === 0) return null;
  return sql`(SELECT height, tx_index, bool_or(sends) AS sends, max(rc) AS rc,
                     array_agg(ri) FILTER (WHERE ri IS NOT NULL) AS ris,
                     CASE WHEN bool_or(sends) THEN greatest(max(rc), 1) ELSE greatest(count(ri), 1) END AS nrows
              FROM (${join(parts, ' UNION ALL ')}) AS touching
              GROUP BY height, tx_index
              ORDER BY height DESC, tx_index DESC
              ${options.txLimit === undefined ? empty : sql`LIMIT ${options.txLimit}`})`;
}

/**
 * The feed's rows (height, tx_index, ri) newest first: each transaction of `txStream` expanded
 * into all its rows where the address sends, else into its own entries (or the single row).
 */
export function rowStream(q: FeedQuery, options: BranchOptions = {}): Sql | null {
  const txs = txStream(q, options);
  if (txs === null) return null;
  return sql`(SELECT k.height, k.tx_index, e.ri
              FROM ${txs} AS k
              CROSS JOIN LATERAL (
                SELECT g.ri FROM generate_series(CASE WHEN k.sends THEN k.rc - 1 WHEN k.ris IS NULL THEN 0 ELSE -1 END, 0, -1) AS g(ri)
                UNION ALL
                SELECT u.ri FROM unnest(CASE WHEN k.sends THEN NULL ELSE k.ris END) AS u(ri)
              ) AS e)`;
}
