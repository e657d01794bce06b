/**
 * The stored pending set of a chain (pending_txs, migration 0091) and how its polling goes
 * (pending_polls): what the pool poller (pending.ts) writes and the API reads
 * (docs/api-transactions.md, "Pending transactions").
 *
 * A poll's write and a block's write exclude each other per chain (`lockPending`, a transaction
 * advisory lock): the poll never stores a transaction that a block committed while it ran, and a
 * block's write (raw-store.ts `forgetPending`) sees every row a poll committed before it. So a
 * transaction is never listed as pending once its block is stored.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { PoolRead } from '../chain/model.ts';
import type { Db, Store } from '../store/store.ts';
import { writerLockKey } from '../store/writer-lock.ts';
import { formatTimestamp } from '../time.ts';

/** Most pending transactions stored per chain; beyond it a poll stores none of the newcomers [PENDING_CAP]. */
export const PENDING_CAP = 5000;

/** The first key of the advisory lock between a chain's poll and its block writes ("QPND"). */
const PENDING_LOCK_NAMESPACE = 0x51504e44;

/** Takes `chain`'s pending lock until the end of the transaction `db` runs in. */
export async function lockPending(db: Db, chain: ChainId): Promise<void> {
  await db.query('ingest.pending.lock', sql`SELECT pg_advisory_xact_lock(${PENDING_LOCK_NAMESPACE}::int4, ${writerLockKey(chain)}::int4)`);
}

const numeric = (values: (bigint | null)[]) => values.map((v) => (v === null ? null : v.toString()));

/**
 * Writes one complete or partial read of `chain`'s pool at `now` (Unix seconds), in one
 * transaction: mined rows deleted, and with a complete read the rows the pool no longer holds
 * (dropped); rows still in the pool keep their first_seen and take the pool state the node gives;
 * newcomers that no block holds are stored in the node's order up to PENDING_CAP rows. The
 * differences are taken against the chain's stored hashes (at most PENDING_CAP) here, so that every
 * statement reads rows by key whatever the planner knows of a table that changes by the second.
 */
export async function writePending(store: Store, chain: ChainId, read: PoolRead, now: number): Promise<{ stored: number; added: number; removed: number }> {
  return store.transaction('ingest.pending.write', async (tx) => {
    await lockPending(tx, chain);
    const [mined] = await tx.query<{ n: number }>(
      'ingest.pending.mined',
      sql`WITH gone AS (
            DELETE FROM pending_txs p WHERE p.chain = ${chain}
              AND EXISTS (SELECT 1 FROM transactions t WHERE t.chain = p.chain AND t.tx_hash = p.tx_hash)
            RETURNING 1)
          SELECT count(*)::int AS n FROM gone`,
    );
    const kept = await tx.query<{ tx_hash: string; pool: string }>('ingest.pending.kept', sql`SELECT tx_hash, pool FROM pending_txs WHERE chain = ${chain}`);
    const inPool = new Map(read.txs.map((t) => [t.hash, t]));
    const dropped = read.complete ? kept.filter((row) => !inPool.has(row.tx_hash)).map((row) => row.tx_hash) : [];
    if (dropped.length > 0) await tx.query('ingest.pending.dropped', sql`DELETE FROM pending_txs WHERE chain = ${chain} AND tx_hash = ANY(${dropped}::text[])`);
    const moved = kept.filter((row) => inPool.has(row.tx_hash) && inPool.get(row.tx_hash)!.pool !== row.pool).map((row) => inPool.get(row.tx_hash)!);
    if (moved.length > 0) {
      await tx.query(
        'ingest.pending.pool_state',
        sql`UPDATE pending_txs p SET pool = u.pool
            FROM unnest(${moved.map((t) => t.hash)}::text[], ${moved.map((t) => t.pool)}::text[]) AS u(tx_hash, pool)
            WHERE p.chain = ${chain} AND p.tx_hash = u.tx_hash`,
      );
    }
    const known = new Set(kept.map((row) => row.tx_hash));
    const t = read.txs.filter((x) => !known.has(x.hash));
    const room = PENDING_CAP - (kept.length - dropped.length);
    const [inserted] =
      t.length === 0 || room <= 0
        ? [{ n: 0 }]
        : await tx.query<{ n: number }>(
            'ingest.pending.add',
            sql`WITH added AS (
                  INSERT INTO pending_txs (chain, tx_hash, first_seen, pool, tx_type, tx_type_evm, from_addr, to_addr, value, recipient_count,
                                           fee, nonce, gas, gas_price, max_fee_per_gas, max_priority_fee_per_gas)
                  SELECT ${chain}, u.tx_hash, ${now}, u.pool, u.tx_type, u.tx_type_evm, u.from_addr, u.to_addr, u.value, u.recipient_count,
                         u.fee, u.nonce, u.gas, u.gas_price, u.max_fee_per_gas, u.max_priority_fee_per_gas
                  FROM unnest(${t.map((x) => x.hash)}::text[], ${t.map((x) => x.pool)}::text[], ${t.map((x) => x.type)}::text[], ${t.map((x) => x.typeEvm)}::int[],
                              ${t.map((x) => x.from)}::text[], ${t.map((x) => x.to)}::text[], ${numeric(t.map((x) => x.value))}::numeric[],
                              ${t.map((x) => x.recipientCount)}::int[], ${numeric(t.map((x) => x.fee))}::numeric[], ${t.map((x) => x.nonce)}::bigint[],
                              ${t.map((x) => x.gas)}::bigint[], ${numeric(t.map((x) => x.gasPrice))}::numeric[], ${numeric(t.map((x) => x.maxFeePerGas))}::numeric[],
                              ${numeric(t.map((x) => x.maxPriorityFeePerGas))}::numeric[])
                       WITH ORDINALITY AS u(tx_hash, pool, tx_type, tx_type_evm, from_addr, to_addr, value, recipient_count, fee, nonce, gas, gas_price,
                                            max_fee_per_gas, max_priority_fee_per_gas, position)
                  WHERE NOT EXISTS (SELECT 1 FROM transactions m WHERE m.chain = ${chain} AND m.tx_hash = u.tx_hash)
                  ORDER BY u.position
                  LIMIT ${room}
                  ON CONFLICT DO NOTHING
                  RETURNING 1)
                SELECT count(*)::int AS n FROM added`,
          );
    const added = inserted?.n ?? 0;
    return { stored: kept.length - dropped.length + added, added, removed: (mined?.n ?? 0) + dropped.length };
  });
}

/**
 * Deletes the pending rows of the chain of `transactions` (the raw rows of a batch being written:
 * chain, height, …) that the batch stores, under the pending lock. One statement over the chain's
 * pending rows, which are few (at most PENDING_CAP): each is looked up among the batch's heights.
 */
export async function forgetPending(db: Db, chain: ChainId, low: number, high: number): Promise<void> {
  await lockPending(db, chain);
  await db.query(
    'ingest.pending.forget',
    sql`DELETE FROM pending_txs p
        WHERE p.chain = ${chain}
          AND EXISTS (SELECT 1 FROM transactions t WHERE t.chain = p.chain AND t.tx_hash = p.tx_hash AND t.height BETWEEN ${low} AND ${high})`,
  );
}

/** How a chain's pool polling goes (pending_polls). */
export interface PendingPoll {
  chain: ChainId;
  method: string;
  intervalMs: number;
  /** When the last poll ended (Unix seconds), whether or not it read the pool. */
  polledTs: number;
  /** When a poll last read the pool. */
  okTs: number | null;
  poolSize: number | null;
  /** Why the last poll did not read the pool; null when it did. */
  error: string | null;
  /** When the indexer stopped following; null while it follows. */
  stoppedTs: number | null;
}

/** Records a poll that read the pool (it follows again if it had stopped). */
export async function recordPollSuccess(db: Db, chain: ChainId, method: string, intervalMs: number, now: number, poolSize: number | null): Promise<void> {
  await db.query(
    'ingest.pending.poll_ok',
    sql`INSERT INTO pending_polls (chain, method, interval_ms, polled_ts, ok_ts, pool_size, error, stopped_ts)
        VALUES (${chain}, ${method}, ${intervalMs}, ${now}, ${now}, ${poolSize}, NULL, NULL)
        ON CONFLICT (chain) DO UPDATE SET method = excluded.method, interval_ms = excluded.interval_ms, polled_ts = excluded.polled_ts,
          ok_ts = excluded.ok_ts, pool_size = excluded.pool_size, error = NULL, stopped_ts = NULL`,
  );
}

/** Records a poll that could not read the pool: the stored set stays what the last success saw. */
export async function recordPollFailure(db: Db, chain: ChainId, method: string, intervalMs: number, now: number, error: string): Promise<void> {
  await db.query(
    'ingest.pending.poll_failed',
    sql`INSERT INTO pending_polls (chain, method, interval_ms, polled_ts, error)
        VALUES (${chain}, ${method}, ${intervalMs}, ${now}, ${error.slice(0, 2000)})
        ON CONFLICT (chain) DO UPDATE SET method = excluded.method, interval_ms = excluded.interval_ms, polled_ts = excluded.polled_ts,
          error = excluded.error, stopped_ts = NULL`,
  );
}

/**
 * Records that an indexer starts polling `chain` at `now`: what an earlier run read no longer
 * counts (its rows stay, hidden, until this run's first read keeps or drops each).
 */
export async function recordPollStarted(db: Db, chain: ChainId, method: string, intervalMs: number, now: number): Promise<void> {
  await db.query(
    'ingest.pending.poll_started',
    sql`INSERT INTO pending_polls (chain, method, interval_ms, polled_ts)
        VALUES (${chain}, ${method}, ${intervalMs}, ${now})
        ON CONFLICT (chain) DO UPDATE SET method = excluded.method, interval_ms = excluded.interval_ms, polled_ts = excluded.polled_ts,
          ok_ts = NULL, pool_size = NULL, error = NULL, stopped_ts = NULL`,
  );
}

/** Records that the indexer stopped following `chain` at `now`. */
export async function recordPollStopped(db: Db, chain: ChainId, now: number): Promise<void> {
  await db.query('ingest.pending.stopped', sql`UPDATE pending_polls SET stopped_ts = ${now} WHERE chain = ${chain}`);
}

export async function readPendingPoll(db: Db, chain: ChainId): Promise<PendingPoll | null> {
  const [row] = await db.query<{
    method: string; interval_ms: number; polled_ts: string | number; ok_ts: string | number | null; pool_size: number | null; error: string | null; stopped_ts: string | number | null;
  }>('pending.poll.read', sql`SELECT method, interval_ms, polled_ts, ok_ts, pool_size, error, stopped_ts FROM pending_polls WHERE chain = ${chain}`, { reusePlan: true });
  if (!row) return null;
  const seconds = (v: string | number | null) => (v === null ? null : Number(v));
  return {
    chain,
    method: row.method,
    intervalMs: Number(row.interval_ms),
    polledTs: Number(row.polled_ts),
    okTs: seconds(row.ok_ts),
    poolSize: row.pool_size === null ? null : Number(row.pool_size),
    error: row.error,
    stoppedTs: seconds(row.stopped_ts),
  };
}

/** A poll this long ago or longer (seconds) no longer counts as following: three intervals, at least a minute. */
export function pendingStaleSeconds(intervalMs: number): number {
  return Math.max(60, Math.ceil((3 * intervalMs) / 1000));
}

/** Whether the pending list may be shown at `now`, and why not. */
export interface PendingState {
  following: boolean;
  /** Whether the stored set is what a recent poll read: only then is the list shown. */
  current: boolean;
  /** Why the list is empty by force; null when it is current. */
  reason: string | null;
}

/**
 * The state of `poll` at `now` (Unix seconds): following while the indexer records polls (none
 * older than `pendingStaleSeconds`) and has not stopped; current while following and a poll read
 * the pool within that bound.
 */
export function pendingState(poll: PendingPoll | null, now: number): PendingState {
  if (!poll) return { following: false, current: false, reason: 'no indexer has followed this chain\'s node: no read of its pool is recorded' };
  if (poll.stoppedTs !== null) return { following: false, current: false, reason: `the indexer stopped following the node at ${formatTimestamp(poll.stoppedTs)} UTC` };
  const stale = pendingStaleSeconds(poll.intervalMs);
  if (now - poll.polledTs > stale) {
    return { following: false, current: false, reason: `no indexer has polled the node's pool since ${formatTimestamp(poll.polledTs)} UTC (more than ${stale} s ago)` };
  }
  if (poll.okTs === null) {
    return { following: true, current: false, reason: poll.error === null ? 'the node\'s pool is not read yet' : `the node's pool could not be read: ${poll.error}` };
  }
  if (now - poll.okTs > stale) {
    return { following: true, current: false, reason: `the node's pool is not read since ${formatTimestamp(poll.okTs)} UTC: ${poll.error ?? 'no answer'}` };
  }
  return { following: true, current: true, reason: null };
}
