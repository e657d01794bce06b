/**
 * The per-address transaction feed as a stream of row keys, newest first.
 *
 * A row is one recipient of a transaction: key (height, tx_index, ri), where ri is the recipient
 * index on a transaction with a recipient list (pow transfers) and 0 otherwise. The rows touching
 * an address are
 *   - out: every row of a transaction it sends (from_addr) or signs (signer_addr, a pow slave);
 *   - in:  the rows it receives: to_addr, a recipient-list entry, or the contract it created.
 * A row that touches the address both ways (a self-transfer) is one row.
 *
 * Each way of touching is a branch over its own per-address index, read index-only and in index
 * order, so PostgreSQL merge-appends the branches and stops after the page (`Unique` drops the
 * rows two branches share). A sender's rows beyond the first (ri >= 1) come from a small partial
 * index of multi-recipient transactions, the first from the plain index: no heap access is needed
 * to know which rows exist. Time filters become height bounds (block times rise with height).
 */
import sql, { empty, join, raw, type Sql } from 'sql-template-tag';
import type { ChainId } from '../../../../chain/chains.ts';

export const DIRECTIONS = ['both', 'in', 'out'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Transaction types that carry a recipient list (canonical model: pow transfer and transfer_token). */
const RECIPIENT_LIST_TYPES: readonly string[] = ['transfer', 'transfer_token'];
/** On transfer_token every recipient-list entry moves 0 native value (the tokens move in token_transfers). */
const ZERO_AMOUNT_TYPE = 'transfer_token';

export interface FeedQuery {
  chain: ChainId;
  address: string;
  direction: Direction;
  /** Only transactions of this type (already checked against the chain's types). */
  txType: string | null;
  /** Heights in [fromHeight, toHeight); null = unbounded. */
  fromHeight: number | null;
  toHeight: number | null;
}

export type RowKey = readonly [height: number, txIndex: number, ri: number];

interface BranchOptions {
  /** Keyset: only transactions at or before this (height, tx_index). */
  atOrBefore?: readonly [number, number] | null;
  /** Leave out the rows ri >= 1 of multi-recipient transactions (enough to count transactions). */
  firstRowsOnly?: boolean;
}

function bounds(q: FeedQuery, options: BranchOptions, alias = ''): Sql {
  const h = raw(`${alias}height`);
  const i = raw(`${alias}tx_index`);
  return sql`${q.fromHeight === null ? empty : sql`AND ${h} >= ${q.fromHeight}`}
    ${q.toHeight === null ? empty : sql`AND ${h} < ${q.toHeight}`}
    ${options.atOrBefore ? sql`AND (${h}, ${i}) <= (${options.atOrBefore[0]}, ${options.atOrBefore[1]})` : empty}`;
}

/** One `(SELECT height, tx_index, ri ... ORDER BY ... DESC)` per way the address takes part. */
export function keyBranches(q: FeedQuery, options: BranchOptions = {}): Sql[] {
  const { chain, address, txType } = q;
  const typed = txType === null ? empty : sql`AND tx_type = ${txType}`;
  const order = sql`ORDER BY height DESC, tx_index DESC`;
  const branches: Sql[] = [];

  if (q.direction !== 'in') {
    for (const column of ['from_addr', 'signer_addr'] as const) {
      const who = raw(column);
      branches.push(sql`(SELECT height, tx_index, 0 AS ri FROM transactions
        WHERE chain = ${chain} AND ${who} = ${address} ${typed} ${bounds(q, options)} ${order})`);
      if (!options.firstRowsOnly && (txType === null || RECIPIENT_LIST_TYPES.includes(txType))) {
        branches.push(sql`(SELECT t.height, t.tx_index, r.ri FROM transactions t
          CROSS JOIN LATERAL generate_series(t.recipient_count - 1, 1, -1) AS r(ri)
          WHERE t.chain = ${chain} AND t.${who} = ${address} AND t.recipient_count > 1
            ${txType === null ? empty : sql`AND t.tx_type = ${txType}`} ${bounds(q, options, 't.')}
          ORDER BY t.height DESC, t.tx_index DESC, r.ri DESC)`);
      }
    }
  }

  if (q.direction !== 'out') {
    branches.push(sql`(SELECT height, tx_index, 0 AS ri FROM transactions
      WHERE chain = ${chain} AND to_addr = ${address} ${typed} ${bounds(q, options)} ${order})`);
    if (txType === null || txType === 'contract_create') {
      branches.push(sql`(SELECT height, tx_index, 0 AS ri FROM transactions
        WHERE chain = ${chain} AND contract_address = ${address} ${typed} ${bounds(q, options)} ${order})`);
    }
    if (txType === null) {
      branches.push(sql`(SELECT height, tx_index, recipient_index AS ri FROM tx_recipients
        WHERE chain = ${chain} AND to_addr = ${address} ${bounds(q, options)}
        ORDER BY height DESC, tx_index DESC, recipient_index DESC)`);
    } else if (RECIPIENT_LIST_TYPES.includes(txType)) {
      // The type is the transaction's: look it up per entry. transfer_token entries all carry
      // 0 native value, so that filter narrows the walk to a partial index (migration 0020).
      branches.push(sql`(SELECT r.height, r.tx_index, r.recipient_index AS ri FROM tx_recipients r
        JOIN transactions t ON t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index
        WHERE r.chain = ${chain} AND r.to_addr = ${address} AND t.tx_type = ${txType}
          ${txType === ZERO_AMOUNT_TYPE ? sql`AND r.amount = 0` : empty} ${bounds(q, options, 'r.')}
        ORDER BY r.height DESC, r.tx_index DESC, r.recipient_index DESC)`);
    }
  }
  return branches;
}

/** The distinct row keys of the feed, newest first, as a subquery with columns (height, tx_index, ri). */
export function keyStream(q: FeedQuery, options: BranchOptions = {}): Sql {
  const branches = keyBranches(q, options);
  if (branches.length === 0) return sql`(SELECT 0::bigint AS height, 0 AS tx_index, 0 AS ri WHERE false)`;
  return sql`(SELECT DISTINCT height, tx_index, ri FROM (${join(branches, ' UNION ALL ')}) AS touching
    ORDER BY height DESC, tx_index DESC, ri DESC)`;
}
