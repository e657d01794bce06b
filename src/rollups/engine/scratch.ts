/**
 * Scratch tables: temporary tables a rollup fills and reads within one batch (the delta tables
 * among them). Each is created once per connection and emptied at every commit (ON COMMIT DELETE
 * ROWS): created and dropped with each batch, their catalog work would be a large share of a followed
 * block's upkeep (docs/ingest.md). They are emptied on use as well, for a second step inside one
 * transaction (a reorg's revert and the apply after it). Names and columns come from the code,
 * never from input.
 */
import type { Db } from '../../store/store.ts';
import type { ScratchTable } from './rollup.ts';

/** The statements that make `name` an empty scratch table with `columns` (as in CREATE TABLE). */
export function scratchTableScript(name: string, columns: string): string {
  return `CREATE TEMP TABLE IF NOT EXISTS ${name} (${columns}) ON COMMIT DELETE ROWS; DELETE FROM ${name};`;
}

/**
 * Makes `tables` empty scratch tables, in one round trip: for use outside a rollup step (a step
 * prepares those its rollups declare).
 */
export async function prepareScratchTables(db: Db, tables: readonly ScratchTable[]): Promise<void> {
  await db.exec(`rollups.scratch.${tables.map((t) => t.name).join('.')}`, tables.map((t) => scratchTableScript(t.name, t.columns)).join('\n'));
}
