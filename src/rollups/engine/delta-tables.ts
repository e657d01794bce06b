/**
 * Puts a batch's `RollupDeltas` into the temporary tables its rollups declared (COPY), for the SQL
 * that merges them into the rollups. The tables last until the end of the transaction.
 */
import sql, { join, raw } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { CopyValue } from '../../store/copy.ts';
import type { Db } from '../../store/store.ts';
import type { RollupDeltas } from './deltas.ts';
import type { DeltaTable, Rollup } from './rollup.ts';

const columnsOf = (table: DeltaTable) => table.columns.split(',').map((column) => column.trim().split(/\s+/)[0]!);

/** The rollups (with delta tables) whose first table holds no row of `chain` yet. */
export async function freshRollups(db: Db, chain: ChainId, rollups: readonly Rollup[]): Promise<Set<string>> {
  const candidates = rollups.filter((rollup) => rollup.deltaTables?.length);
  // Table names come from the registry, never from input.
  const [fresh] = await db.query<Record<string, boolean>>(
    'rollups.delta.fresh',
    sql`SELECT ${join(candidates.map((rollup, i) => sql`NOT EXISTS (SELECT 1 FROM ${raw(rollup.tables[0]!)} WHERE chain = ${chain}) AS ${raw(`r${i}`)}`))}`,
  );
  return new Set(candidates.filter((_, i) => fresh![`r${i}`]).map((rollup) => rollup.name));
}

/**
 * Writes every delta table of `rollups`. Without `fresh` (a revert) every row goes to its delta
 * table; with it, a `direct` table of a fresh rollup goes straight into the rollup's table.
 */
export async function writeDeltaTables(db: Db, deltas: RollupDeltas, rollups: readonly Rollup[], fresh?: ReadonlySet<string>): Promise<void> {
  const analyze: string[] = [];
  // Kept for the connection's life and emptied at every commit: created and dropped with each
  // batch, their catalog work was a large share of a followed block's upkeep (docs/ingest.md). The
  // delete matters only to a second step inside one transaction. One script for all of them, one
  // round trip; names and columns come from the registry, never from input.
  const tables = rollups.flatMap((rollup) => rollup.deltaTables ?? []);
  await db.exec(
    'rollups.delta.prepare',
    tables.map((t) => `CREATE TEMP TABLE IF NOT EXISTS ${t.name} (${t.columns}) ON COMMIT DELETE ROWS; DELETE FROM ${t.name};`).join('\n'),
  );
  for (const rollup of rollups) {
    for (const table of rollup.deltaTables ?? []) {
      const label = table.name.replace('delta_', '');
      if (table.direct && fresh?.has(rollup.name)) {
        const target = rollup.tables[0]!;
        await db.copyRows(`rollups.direct.${target}`, target, ['chain', ...columnsOf(table)], withChain(deltas.chain, table.rows(deltas)));
      } else {
        await db.copyRows(`rollups.delta.${label}`, table.name, columnsOf(table), table.rows(deltas));
      }
      if (table.analyze) analyze.push(table.name);
    }
  }
  if (analyze.length > 0) await db.query('rollups.delta.analyze', sql`ANALYZE ${raw(analyze.join(', '))}`);
}

function* withChain<T>(chain: ChainId, rows: Iterable<T[]>): Generator<(T | ChainId)[]> {
  for (const row of rows) yield [chain, ...row];
}

/** Rows of a map (key → figures), for a delta table. */
export function* rowsOf<K, T>(map: Map<K, T>, row: (key: K, value: T) => CopyValue[]): Generator<CopyValue[]> {
  for (const [key, value] of map) yield row(key, value);
}

/** Rows of a two-level map (address → key → figures), for a delta table. */
export function* nestedRowsOf<K, T>(map: Map<string, Map<K, T>>, row: (address: string, key: K, value: T) => CopyValue[]): Generator<CopyValue[]> {
  for (const [address, inner] of map) for (const [key, value] of inner) yield row(address, key, value);
}
