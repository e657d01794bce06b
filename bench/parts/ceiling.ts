/**
 * The store's COPY ceiling: rows into an unindexed scratch table with nothing else to do, which
 * bounds the generate-and-store and ingest rates. `server`: text the server produced itself (no
 * client work, PostgreSQL only); `store`: `store.copyRows`, Quarry's path, encoding included.
 */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import sql from 'sql-template-tag';
import type { Store } from '../../src/store/store.ts';
import type { CopyValue } from '../../src/store/copy.ts';
import { loadAverage, log, round } from '../proc.ts';
import type { TierStore } from '../stores.ts';

export interface CopyRate {
  rows: number;
  megabytes: number;
  seconds: number;
  rowsPerSecond: number;
  megabytesPerSecond: number;
}

export interface CopyCeiling {
  store: string;
  rows: number;
  /** Mean bytes per row in COPY text format. */
  rowBytes: number;
  server: CopyRate | null;
  /**
   * The server-side ceiling of each of the largest tables, with its own rows (PostgreSQL only): narrow
   * rollup rows go in faster than transactions, and the storage bound weighs each table by its own.
   */
  serverByTable?: Record<string, CopyRate>;
  store_copyRows: CopyRate;
  loadAverage: number[];
}

const SCRATCH = 'bench_copy_scratch';
const REPEATS = 3;

export async function measureCopyCeiling(target: TierStore, store: Store): Promise<CopyCeiling> {
  const { tier } = target;
  log(`${tier.name}/${target.kind}: COPY ceiling (${tier.copyRows} transaction rows)`);
  const columns = (await store.query<{ column_name: string }>(
    'bench.copy.columns',
    sql`SELECT column_name FROM information_schema.columns WHERE table_name = 'transactions' AND table_schema = current_schema() ORDER BY ordinal_position`,
  )).map((r) => r.column_name);
  const rows = (await store.query<Record<string, CopyValue>>('bench.copy.sample', sql`SELECT * FROM transactions ORDER BY chain, height DESC, tx_index LIMIT ${tier.copyRows}`))
    .map((row) => columns.map((c) => row[c]));
  const recreate = async () => {
    await store.exec('bench.copy.drop', `DROP TABLE IF EXISTS ${SCRATCH}`);
    await store.exec('bench.copy.create', `CREATE TABLE ${SCRATCH} (LIKE transactions INCLUDING DEFAULTS)`);
  };

  let server: CopyRate | null = null;
  let serverByTable: Record<string, CopyRate> | undefined;
  let text: Buffer | null = null;
  const env = target.env('work');
  if (target.kind === 'postgres' && env.QUARRY_DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.QUARRY_DATABASE_URL });
    await client.connect();
    try {
      text = await copyOut(client, `COPY (SELECT * FROM transactions ORDER BY chain, height DESC, tx_index LIMIT ${Number(tier.copyRows)}) TO STDOUT`);
      server = rate(rows.length, text.length, await serverCopySeconds(client, 'transactions', text));
      serverByTable = await tableCeilings(client, Number(tier.copyRows));
    } finally {
      await client.end();
    }
  }

  const runs: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    await recreate();
    const started = performance.now();
    await store.copyRows('bench.copy.rows', SCRATCH, columns, rows);
    runs.push((performance.now() - started) / 1000);
  }
  await store.exec('bench.copy.drop', `DROP TABLE IF EXISTS ${SCRATCH}`);
  const bytes = text?.length ?? rows.reduce((n, row) => n + row.reduce<number>((m, v) => m + String(v ?? '\\N').length + 1, 0), 0);
  const result: CopyCeiling = {
    store: target.kind,
    rows: rows.length,
    rowBytes: round(bytes / Math.max(1, rows.length), 0),
    server,
    serverByTable,
    store_copyRows: rate(rows.length, bytes, best(runs)),
    loadAverage: loadAverage(),
  };
  log(
    `${tier.name}/${target.kind}: COPY ceiling ${server ? `${server.rowsPerSecond} rows/s (${server.megabytesPerSecond} MB/s) server-side, ` : ''}` +
      `${result.store_copyRows.rowsPerSecond} rows/s through store.copyRows`,
  );
  return result;
}

/** How many of the largest tables get a ceiling of their own: together they hold most of the stored rows. */
const LARGEST_TABLES = 8;

/** COPY FROM of each large table's own rows (at most `limit`) into an unindexed copy of it. */
async function tableCeilings(client: pg.Client, limit: number): Promise<Record<string, CopyRate>> {
  const { rows: largest } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind = 'r' AND n.nspname = current_schema() AND c.relname <> $1
     ORDER BY c.reltuples DESC LIMIT ${LARGEST_TABLES}`,
    [SCRATCH],
  );
  const out: Record<string, CopyRate> = {};
  for (const { name } of largest) {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) continue;
    const text = await copyOut(client, `COPY (SELECT * FROM ${name} LIMIT ${limit}) TO STDOUT`);
    const count = countLines(text);
    if (count > 0) out[name] = rate(count, text.length, await serverCopySeconds(client, name, text));
  }
  return out;
}

/** The best of REPEATS server-side COPY FROM runs of `text` into a fresh unindexed copy of `table`. */
async function serverCopySeconds(client: pg.Client, table: string, text: Buffer): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    await client.query(`DROP TABLE IF EXISTS ${SCRATCH}`);
    await client.query(`CREATE TABLE ${SCRATCH} (LIKE ${table} INCLUDING DEFAULTS)`);
    const started = performance.now();
    await pipeline(Readable.from(chunks(text)), client.query(copyFrom(`COPY ${SCRATCH} FROM STDIN`)));
    runs.push((performance.now() - started) / 1000);
  }
  await client.query(`DROP TABLE IF EXISTS ${SCRATCH}`);
  return best(runs);
}

function countLines(text: Buffer): number {
  let count = 0;
  for (let i = text.indexOf(10); i !== -1; i = text.indexOf(10, i + 1)) count++;
  return count;
}

function rate(rows: number, bytes: number, seconds: number): CopyRate {
  const megabytes = bytes / 2 ** 20;
  return {
    rows,
    megabytes: round(megabytes),
    seconds: round(seconds, 3),
    rowsPerSecond: Math.round(rows / seconds),
    megabytesPerSecond: round(megabytes / seconds),
  };
}

/** The fastest of the repeats: the others lost time to the rest of the machine, not to COPY. */
function best(runs: number[]): number {
  return Math.min(...runs);
}

async function copyOut(client: pg.Client, statement: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  await pipeline(
    client.query(copyTo(statement)),
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        parts.push(chunk);
        done();
      },
    }),
  );
  return Buffer.concat(parts);
}

function* chunks(buffer: Buffer, size = 1 << 20): Generator<Buffer> {
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}
