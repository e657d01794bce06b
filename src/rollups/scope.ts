/**
 * The one definition of how raw rows turn into per-address facts. For a scope (a chain and a
 * height range) it materialises three temporary tables that every rollup reads:
 *
 * - `scope_ledger`: native value movements, one row per address per movement: value received,
 *   value sent, fees paid, and `debit`, what leaves the balance (a mint's sender is not debited).
 *   balance = Σ received - Σ debit - Σ fee.
 * - `scope_participation`: one row per (address, logical transaction) with whether the address
 *   received (is_in) and/or sent or signed (is_out) in it.
 * - `scope_pairs`: one row per (address, counterparty, transaction) for top-level value transfers,
 *   from both ends.
 *
 * Applying a block range adds what its rows contribute; reverting subtracts the same, so the two
 * always agree. Bulk loads apply the range [0, tip] once.
 */
import sql, { raw, type Sql } from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';

export interface Scope {
  chain: ChainId;
  fromHeight: number;
  toHeight: number;
}

/** SQL for the UTC day of a Unix-seconds column. */
export const dayOf = (column: string): Sql => raw(`(DATE '1970-01-01' + (${column} / 86400)::int)`);

const inRange = (alias: string, scope: Scope): Sql =>
  sql`${raw(alias)}.chain = ${scope.chain} AND ${raw(alias)}.height BETWEEN ${scope.fromHeight} AND ${scope.toHeight}`;

/** A value movement counts only when its transaction did not revert. */
const SUCCEEDED = raw(`t.status IS DISTINCT FROM 0`);

function ledgerQuery(scope: Scope): Sql {
  return sql`
    -- senders: value sent (unless reverted), fee, burn and gas, always
    SELECT t.from_addr AS address, t.to_addr AS counterparty, t.height, t.tx_index, 0 AS seq, t.ts, t.tx_hash,
           0::numeric AS received,
           CASE WHEN ${SUCCEEDED} THEN t.value ELSE 0 END AS sent,
           CASE WHEN ${SUCCEEDED} AND NOT t.mints THEN t.value ELSE 0 END AS debit,
           t.fee, t.burned, coalesce(t.gas_used, 0) AS gas_used, 1 AS is_tx
    FROM transactions t WHERE ${inRange('t', scope)}
    UNION ALL
    -- single recipients, including a created contract
    SELECT coalesce(t.to_addr, t.contract_address), t.from_addr, t.height, t.tx_index, 1, t.ts, t.tx_hash,
           t.value, 0, 0, 0, 0, 0, 0
    FROM transactions t
    WHERE ${inRange('t', scope)} AND coalesce(t.to_addr, t.contract_address) IS NOT NULL AND t.value > 0 AND ${SUCCEEDED}
    UNION ALL
    -- each recipient of a multi-recipient transfer
    SELECT r.to_addr, t.from_addr, r.height, r.tx_index, r.recipient_index + 1, t.ts, t.tx_hash,
           r.amount, 0, 0, 0, 0, 0, 0
    FROM tx_recipients r JOIN transactions t ON t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index
    WHERE ${inRange('r', scope)} AND r.amount > 0
    UNION ALL
    -- internal transfers, both ends
    SELECT i.from_addr, i.to_addr, i.height, i.tx_index, 1000000, i.ts, i.tx_hash, 0, i.value, i.value, 0, 0, 0, 0
    FROM internal_txs i WHERE ${inRange('i', scope)}
    UNION ALL
    SELECT i.to_addr, i.from_addr, i.height, i.tx_index, 1000000, i.ts, i.tx_hash, i.value, 0, 0, 0, 0, 0, 0
    FROM internal_txs i WHERE ${inRange('i', scope)}
    UNION ALL
    -- consensus-layer withdrawals, after the block's transactions
    SELECT w.address, NULL, w.height, 2000000000, w.position, w.ts, NULL, w.amount, 0, 0, 0, 0, 0, 0
    FROM withdrawals w WHERE ${inRange('w', scope)}
    UNION ALL
    -- priority fees paid to the fee recipient (pos)
    SELECT b.miner, NULL, b.height, 2000000001, 0, b.ts, NULL, b.priority_fees, 0, 0, 0, 0, 0, 0
    FROM blocks b WHERE ${inRange('b', scope)} AND b.priority_fees > 0 AND b.miner IS NOT NULL
    UNION ALL
    -- genesis allocations belong to block 0
    SELECT g.address, NULL, 0, -1, 0, b.ts, NULL, g.amount, 0, 0, 0, 0, 0, 0
    FROM genesis_allocations g JOIN blocks b ON b.chain = g.chain AND b.height = 0
    WHERE g.chain = ${scope.chain} AND ${scope.fromHeight} = 0`;
}

function participationQuery(scope: Scope): Sql {
  return sql`
    SELECT address, height, tx_index, min(ts) AS ts, min(tx_type) AS tx_type, min(tx_hash) AS tx_hash,
           bool_or(is_in) AS is_in, bool_or(is_out) AS is_out, bool_or(is_user) AS is_user
    FROM (
      SELECT t.from_addr AS address, t.height, t.tx_index, t.ts, t.tx_type, t.tx_hash, false AS is_in, true AS is_out, t.tx_type <> 'coinbase' AS is_user
      FROM transactions t WHERE ${inRange('t', scope)}
      UNION ALL
      SELECT coalesce(t.to_addr, t.contract_address), t.height, t.tx_index, t.ts, t.tx_type, t.tx_hash, true, false, t.tx_type <> 'coinbase'
      FROM transactions t WHERE ${inRange('t', scope)} AND coalesce(t.to_addr, t.contract_address) IS NOT NULL
      UNION ALL
      SELECT r.to_addr, r.height, r.tx_index, t.ts, t.tx_type, t.tx_hash, true, false, true
      FROM tx_recipients r JOIN transactions t ON t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index
      WHERE ${inRange('r', scope)}
      UNION ALL
      SELECT t.signer_addr, t.height, t.tx_index, t.ts, t.tx_type, t.tx_hash, false, true, true
      FROM transactions t WHERE ${inRange('t', scope)} AND t.signer_addr IS NOT NULL
    ) touches
    GROUP BY address, height, tx_index`;
}

function pairsQuery(scope: Scope): Sql {
  return sql`
    SELECT address, counterparty, height, tx_index, min(ts) AS ts, bool_or(is_out) AS is_out, bool_or(is_in) AS is_in,
           sum(sent) AS sent, sum(received) AS received
    FROM (
      SELECT t.from_addr AS address, coalesce(t.to_addr, t.contract_address) AS counterparty, t.height, t.tx_index, t.ts,
             true AS is_out, false AS is_in, CASE WHEN ${SUCCEEDED} THEN t.value ELSE 0 END AS sent, 0::numeric AS received
      FROM transactions t WHERE ${inRange('t', scope)} AND coalesce(t.to_addr, t.contract_address) IS NOT NULL
      UNION ALL
      SELECT coalesce(t.to_addr, t.contract_address), t.from_addr, t.height, t.tx_index, t.ts,
             false, true, 0, CASE WHEN ${SUCCEEDED} THEN t.value ELSE 0 END
      FROM transactions t WHERE ${inRange('t', scope)} AND coalesce(t.to_addr, t.contract_address) IS NOT NULL
      UNION ALL
      SELECT t.from_addr, r.to_addr, r.height, r.tx_index, t.ts, true, false, r.amount, 0
      FROM tx_recipients r JOIN transactions t ON t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index
      WHERE ${inRange('r', scope)}
      UNION ALL
      SELECT r.to_addr, t.from_addr, r.height, r.tx_index, t.ts, false, true, 0, r.amount
      FROM tx_recipients r JOIN transactions t ON t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index
      WHERE ${inRange('r', scope)}
    ) ends
    GROUP BY address, counterparty, height, tx_index`;
}

/** Creates scope_ledger, scope_participation and scope_pairs for `scope` (replacing earlier ones). */
export async function materialiseScope(db: Db, scope: Scope): Promise<void> {
  for (const [name, query] of [
    ['scope_ledger', ledgerQuery(scope)],
    ['scope_participation', participationQuery(scope)],
    ['scope_pairs', pairsQuery(scope)],
  ] as const) {
    await db.query(`rollups.scope.drop_${name}`, sql`DROP TABLE IF EXISTS ${raw(name)}`);
    await db.query(`rollups.scope.${name}`, sql`CREATE TEMP TABLE ${raw(name)} ON COMMIT DROP AS ${query}`);
  }
  await db.query('rollups.scope.analyze', sql`ANALYZE scope_ledger, scope_participation, scope_pairs`);
}
