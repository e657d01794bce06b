/**
 * Writing and removing raw rows: COPY for the bulk of a batch, upserts where a row may come
 * again (token metadata), and deletion of everything above a height for a reorg.
 */
import sql, { raw } from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { DeadLetterItem } from '../chain/model.ts';
import type { Db } from '../store/store.ts';
import { HEIGHT_TABLES, RAW_COLUMNS, type RawRows, type RawTable } from './rows.ts';

const COPIED: RawTable[] = ['blocks', 'transactions', 'tx_recipients', 'internal_txs', 'token_transfers', 'slaves', 'withdrawals', 'migration_legs'];

export async function writeRawRows(db: Db, rows: RawRows): Promise<void> {
  for (const table of COPIED) {
    if (rows[table].length > 0) await db.copyRows(`ingest.copy.${table}`, table, RAW_COLUMNS[table], rows[table]);
  }
  // Genesis allocations and token metadata can be reported again (a replayed genesis, a token seen
  // again after a reorg): keep the first report.
  for (const allocation of rows.genesis_allocations) {
    const [chain, address, amount] = allocation;
    await db.query('ingest.genesis', sql`INSERT INTO genesis_allocations (chain, address, amount) VALUES (${chain}, ${address}, ${amount}) ON CONFLICT DO NOTHING`);
  }
  for (const token of rows.token_contracts) {
    const [chain, address, name, symbol, decimals, creator, height, tx] = token;
    await db.query(
      'ingest.token_contract',
      sql`INSERT INTO token_contracts (chain, address, name, symbol, decimals, creator, created_height, created_tx)
          VALUES (${chain}, ${address}, ${name}, ${symbol}, ${decimals}, ${creator}, ${height}, ${tx})
          ON CONFLICT (chain, address) DO NOTHING`,
    );
  }
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
  for (const letter of letters) {
    const payload = safeJson(letter.payload).slice(0, PAYLOAD_LIMIT);
    await db.query(
      'ingest.dead_letter',
      sql`INSERT INTO dead_letters (chain, source, height, item, error, payload, created_ts)
          VALUES (${letter.chain}, ${source}, ${letter.height}, ${letter.item}, ${letter.error.slice(0, 2000)}, ${payload}, ${now})
          ON CONFLICT DO NOTHING`,
    );
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
  } catch {
    return String(value);
  }
}
