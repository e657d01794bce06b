/**
 * Writing and removing raw rows: COPY for the bulk of a batch, upserts where a row may come
 * again (token metadata), and deletion of everything above a height for a reorg.
 */
import sql, { raw } from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { DeadLetterItem } from '../chain/model.ts';
import type { Db } from '../store/store.ts';
import type { CopyValue } from '../store/copy.ts';
import { HEIGHT_TABLES, RAW_COLUMNS, type RawRows, type RawTable } from './rows.ts';
import { forgetPending } from './pending-store.ts';

const COPIED: RawTable[] = [
  'blocks', 'transactions', 'tx_recipients', 'internal_txs', 'contract_creations', 'token_transfers', 'slaves', 'withdrawals', 'migration_legs', 'opening_balances',
  'multisig_addresses', 'multisig_signatories', 'multisig_spends', 'multisig_spend_recipients', 'multisig_votes', 'lattice_keys',
];

export async function writeRawRows(db: Db, rows: RawRows): Promise<void> {
  for (const table of COPIED) {
    if (rows[table].length > 0) await db.copyRows(`ingest.copy.${table}`, table, RAW_COLUMNS[table], rows[table]);
  }
  const span = heightSpan(rows.transactions);
  if (span) {
    await forgetOrphans(db, span);
    // The batch's transactions are no longer pending (pending-store.ts).
    await forgetPending(db, span.chain, span.low, span.high);
  }
  // Genesis allocations and token metadata can be reported again (a replayed genesis, a token seen
  // again after a reorg): keep the first report.
  await upsertRows(db, 'genesis_allocations', rows.genesis_allocations);
  await upsertRows(db, 'token_contracts', rows.token_contracts);
}

interface HeightSpan {
  chain: ChainId;
  low: number;
  high: number;
}

/** The chain and the lowest and highest height of a batch's transaction rows (chain, height, …); null without any. */
function heightSpan(transactions: readonly CopyValue[][]): HeightSpan | null {
  if (transactions.length === 0) return null;
  let low = Infinity;
  let high = -Infinity;
  for (const row of transactions) {
    const height = Number(row[1]);
    if (height < low) low = height;
    if (height > high) high = height;
  }
  return { chain: transactions[0]![0] as ChainId, low, high };
}

/**
 * A transaction a reorg removed that is stored again (on the new branch) is no longer orphaned.
 * One statement over the orphans of the chain, which are few: each is looked up among the batch's
 * heights (by hash, or in the batch's primary-key range while a bulk load has dropped the hash index).
 */
async function forgetOrphans(db: Db, { chain, low, high }: HeightSpan): Promise<void> {
  await db.query(
    'ingest.orphans.forget',
    sql`DELETE FROM orphaned_txs o
        WHERE o.chain = ${chain}
          AND EXISTS (SELECT 1 FROM transactions t WHERE t.chain = o.chain AND t.tx_hash = o.tx_hash AND t.height BETWEEN ${low} AND ${high})`,
  );
}

/**
 * Remembers the transactions of `chain` above `height` as orphaned by a reorg that replaced the
 * blocks from `reorgHeight` on (before their rows are deleted; docs/api-transactions.md).
 */
export async function recordOrphans(db: Db, chain: ChainId, height: number, reorgHeight: number, stamp: number): Promise<void> {
  await db.query(
    'ingest.orphans.record',
    sql`INSERT INTO orphaned_txs (chain, tx_hash, height, block_hash, reorg_height, removed_ts)
        SELECT t.chain, t.tx_hash, t.height, b.hash, ${reorgHeight}, ${stamp}
        FROM transactions t JOIN blocks b ON b.chain = t.chain AND b.height = t.height
        WHERE t.chain = ${chain} AND t.height > ${height}
        ON CONFLICT (chain, tx_hash) DO UPDATE SET height = excluded.height, block_hash = excluded.block_hash,
          reorg_height = excluded.reorg_height, removed_ts = excluded.removed_ts`,
  );
}

/** COPY into a scratch table, then insert what is not there yet. */
export async function upsertRows(db: Db, table: RawTable | 'labels' | 'exchange_wallets' | 'chain_settings' | 'staking_daily' | 'validators' | 'validator_days' | 'slot_proposers', rows: CopyValue[][], columns: readonly string[] = RAW_COLUMNS[table as RawTable], onConflict = 'DO NOTHING'): Promise<void> {
  if (rows.length === 0) return;
  const scratch = `scratch_${table}`;
  await db.query('ingest.scratch.drop', sql`DROP TABLE IF EXISTS ${raw(scratch)}`);
  await db.query('ingest.scratch.create', sql`CREATE TEMP TABLE ${raw(scratch)} ON COMMIT DROP AS SELECT ${raw(columns.join(', '))} FROM ${raw(table)} LIMIT 0`);
  await db.copyRows(`ingest.scratch.${table}`, scratch, columns, rows);
  await db.query(
    `ingest.upsert.${table}`,
    sql`INSERT INTO ${raw(table)} (${raw(columns.join(', '))}) SELECT ${raw(columns.join(', '))} FROM ${raw(scratch)} ON CONFLICT ${raw(onConflict)}`,
  );
}

/** Deletes every raw row of `chain` above `height` (token contracts created above it too). */
export async function deleteRawAbove(db: Db, chain: ChainId, height: number): Promise<void> {
  for (const table of HEIGHT_TABLES) {
    await db.query(`ingest.delete.${table}`, sql`DELETE FROM ${raw(table)} WHERE chain = ${chain} AND height > ${height}`);
  }
  await db.query('ingest.delete.token_contracts', sql`DELETE FROM token_contracts WHERE chain = ${chain} AND created_height > ${height}`);
  if (height < 0) await db.query('ingest.delete.genesis', sql`DELETE FROM genesis_allocations WHERE chain = ${chain}`);
}

export interface DeadLetter extends DeadLetterItem {
  chain: ChainId;
  height: number | null;
}

const PAYLOAD_LIMIT = 16_384;

/** Records dead letters; the same (chain, source, height, item) is recorded once. */
export async function writeDeadLetters(db: Db, source: string, letters: DeadLetter[], now: number): Promise<void> {
  if (letters.length === 0) return;
  // One statement for the batch's letters: a node backfill can meet hundreds in one batch.
  await db.query(
    'ingest.dead_letter',
    sql`INSERT INTO dead_letters (chain, source, height, item, error, payload, created_ts)
        SELECT chain, ${source}, height, item, error, payload, ${now}
        FROM unnest(${letters.map((l) => l.chain)}::text[], ${letters.map((l) => l.height)}::bigint[], ${letters.map((l) => l.item ?? null)}::text[],
                    ${letters.map((l) => l.error.slice(0, 2000))}::text[], ${letters.map((l) => safeJson(l.payload).slice(0, PAYLOAD_LIMIT))}::text[])
             AS u(chain, height, item, error, payload)
        ON CONFLICT DO NOTHING`,
  );
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
  } catch {
    return String(value);
  }
}
