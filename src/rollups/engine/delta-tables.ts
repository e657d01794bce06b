/**
 * Puts a batch's `RollupDeltas` into the temporary tables its rollups declared (COPY), for the SQL
 * that merges them into the rollups. They are scratch tables (engine/scratch.ts), emptied at commit.
 */
import sql, { join, raw, type Sql } from 'sql-template-tag';
import type { ChainId } from '../../chain/chains.ts';
import type { CopyValue } from '../../store/copy.ts';
import type { Db } from '../../store/store.ts';
import type { RollupDeltas } from './deltas.ts';
import type { AnyRollup, DeltaTable } from './rollup.ts';
import { scratchTableScript } from './scratch.ts';

const columnsOf = (table: DeltaTable) => columnDefinitions(table).map((column) => column.name);

/**
 * The rollups (with delta tables) whose first table holds no row of `chain` yet. `filled` names
 * (as `chain:rollup`) those already seen holding rows, which are not asked again and are added to:
 * the question costs a scan past the other chain's rows, and its answer only decides between a
 * plain insert and a merge, which is right for an empty table too.
 */
export async function freshRollups(db: Db, chain: ChainId, rollups: readonly AnyRollup[], filled = new Set<string>()): Promise<Set<string>> {
  const candidates = rollups.filter((rollup) => rollup.deltaTables?.length && !filled.has(`${chain}:${rollup.name}`));
  if (candidates.length === 0) return new Set();
  // Table names come from the registry, never from input.
  const [fresh] = await db.query<Record<string, boolean>>(
    'rollups.delta.fresh',
    sql`SELECT ${join(candidates.map((rollup, i) => sql`NOT EXISTS (SELECT 1 FROM ${raw(rollup.tables[0]!)} WHERE chain = ${chain}) AS ${raw(`r${i}`)}`))}`,
  );
  for (const [i, rollup] of candidates.entries()) if (!fresh![`r${i}`]) filled.add(`${chain}:${rollup.name}`);
  return new Set(candidates.filter((_, i) => fresh![`r${i}`]).map((rollup) => rollup.name));
}

/**
 * A step with at most this many delta rows in all (a followed block) writes its delta tables in one
 * statement; a larger one by COPY, table by table, which is faster per row but a round trip each.
 */
const ONE_STATEMENT_ROWS = 5_000;

/**
 * Writes every delta table of `rollups` (and empties their other scratch tables). Without `fresh`
 * (a revert) every row goes to its delta table; with it, a `direct` table of a fresh rollup goes
 * straight into the rollup's table (and is analysed there when the delta table would have been).
 */
export async function writeDeltaTables(db: Db, deltas: RollupDeltas, rollups: readonly AnyRollup[], fresh?: ReadonlySet<string>): Promise<void> {
  // Scratch tables (engine/scratch.ts), the rollups' own among them, all prepared in one script: one round trip.
  const tables = rollups.flatMap((rollup) => rollup.deltaTables ?? []);
  const scratch = [...tables, ...rollups.flatMap((rollup) => rollup.scratchTables ?? [])];
  await db.exec('rollups.delta.prepare', scratch.map((t) => scratchTableScript(t.name, t.columns)).join('\n'));
  const pending: { table: DeltaTable; rows: CopyValue[][] }[] = [];
  const analyze: string[] = [];
  for (const rollup of rollups) {
    for (const table of rollup.deltaTables ?? []) {
      const rows = tableRows(table, rollup, deltas);
      if (table.direct && fresh?.has(rollup.name)) {
        await db.copyRows(`rollups.direct.${table.direct}`, table.direct, ['chain', ...columnsOf(table)], withChain(deltas.chain, inKeyOrder(rows)));
        if (table.analyze) analyze.push(table.direct);
      } else {
        pending.push({ table, rows: [...rows] });
        if (table.analyze) analyze.push(table.name);
      }
    }
  }
  if (pending.reduce((n, p) => n + p.rows.length, 0) <= ONE_STATEMENT_ROWS) {
    await insertInOneStatement(db, pending);
  } else {
    for (const { table, rows } of pending) await db.copyRows(`rollups.delta.${table.name.replace('delta_', '')}`, table.name, columnsOf(table), rows);
  }
  if (analyze.length > 0) await db.query('rollups.delta.analyze', sql`ANALYZE ${raw(analyze.join(', '))}`);
}

/**
 * Every table's rows in one INSERT per table, all in one statement (data-modifying CTEs): each
 * column goes as one text array and is cast to its column's type, as COPY would read its text.
 */
async function insertInOneStatement(db: Db, pending: { table: DeltaTable; rows: CopyValue[][] }[]): Promise<void> {
  const inserts = pending
    .filter(({ rows }) => rows.length > 0)
    .map(({ table, rows }, t) => {
      const columns = columnDefinitions(table);
      // Names and types come from the registry, never from input; the values are parameters.
      return sql`${raw(`t${t}`)} AS (INSERT INTO ${raw(table.name)} (${raw(columns.map((c) => c.name).join(', '))})
                 ${valuesSelect(columns.map((column, i) => ({ ...column, i })), rows)})`;
    });
  if (inserts.length > 0) await db.query('rollups.delta.rows', sql`WITH ${join(inserts)} SELECT 1`);
}

/** A SELECT of `rows`' values at the `columns` (by their index `i` in a row), one text array per column, cast to its type. */
function valuesSelect(columns: { name: string; type: string; i: number }[], rows: CopyValue[][]): Sql {
  const arrays = columns.map((column) => sql`${rows.map((row) => asText(row[column.i]))}::text[]`);
  const casts = columns.map((column, k) => `c${k}::${column.type} AS ${column.name}`).join(', ');
  return sql`SELECT ${raw(casts)} FROM unnest(${join(arrays)}) AS u(${raw(columns.map((_, k) => `c${k}`).join(', '))})`;
}

/** The rows of `rollup`'s delta table `table`, from the rollup's own reduction of the step. */
export function tableRows(table: DeltaTable, rollup: AnyRollup, deltas: RollupDeltas): Iterable<CopyValue[]> {
  if (!rollup.deltas) throw new Error(`rollup ${rollup.name}: delta table ${table.name} without a reducer`);
  return table.rows(deltas.of(rollup.deltas));
}

/**
 * The rows of a direct table that went straight into its rollup's table (DeltaTable.direct): that
 * table held no row of the chain before the step, so its rows of the chain are the step's.
 */
export function directRows(table: DeltaTable, chain: ChainId, columns?: readonly string[]): Sql {
  const picked = columnsOf(table).filter((column) => !columns || columns.includes(column));
  // Names come from the registry, never from input.
  return sql`(SELECT ${raw(picked.join(', '))} FROM ${raw(table.direct!)} WHERE chain = ${chain})`;
}

/** The same rows as a relation of values (of the `columns` named), for a statement whose plan is kept. */
export function rowsAsValues(table: DeltaTable, rows: Iterable<CopyValue[]>, columns?: readonly string[]): Sql {
  const picked = columnDefinitions(table)
    .map((column, i) => ({ ...column, i }))
    .filter((column) => !columns || columns.includes(column.name));
  return sql`(${valuesSelect(picked, [...rows])})`;
}

function columnDefinitions(table: DeltaTable): { name: string; type: string }[] {
  return table.columns.split(',').map((definition) => {
    const match = /^\s*(\w+)\s+(\w+(?: \w+)*)\s*$/.exec(definition);
    if (!match) throw new Error(`delta table ${table.name}: cannot read the column definition "${definition}"`);
    return { name: match[1]!, type: match[2]! };
  });
}

/** A value as COPY's text format would give it to PostgreSQL (null stays null). */
function asText(value: CopyValue): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value);
}

/**
 * Rows in the order of their leading columns (a direct table's key: DeltaTable.direct). Copied in
 * that order, each row goes in at the end of the key's index: in the reducer's order (addresses as
 * they first appeared) each would go to a page of its own, and a large copy cost about twice as much.
 */
function inKeyOrder(rows: Iterable<CopyValue[]>): CopyValue[][] {
  return [...rows].sort((a, b) => {
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      const y = b[i];
      if (x === y) continue;
      if (x === null || x === undefined) return -1;
      if (y === null || y === undefined) return 1;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    return 0;
  });
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
