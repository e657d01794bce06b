/**
 * Bulk loading: the fast path for filling an empty store (a generated chain, a first sync). The
 * secondary indexes of the big tables are dropped while batches are written (raw rows and rollup
 * deltas, as always, but in large batches), every closed day is computed once at the end, and the
 * indexes are rebuilt. A marker row keeps the dropped index definitions, so a crashed bulk load
 * resumes (or finishes) where it stopped.
 *
 * The two indexers' first syncs share one load: started together on an empty store (their units
 * enabled at once), the first to begin drops the indexes and the other joins it (the marker lists
 * the chains taking part). Each closes its own chain's days when it catches up, never the other's
 * (whose rollups may still owe the deltas of batches in its memory); the last to finish rebuilds
 * the indexes.
 */
import sql from 'sql-template-tag';
import type { Logger } from 'pino';
import { CHAINS, type ChainId } from '../chain/chains.ts';
import type { Db, Store } from '../store/store.ts';
import { eachDay, formatDay, lastClosedDay } from '../time.ts';
import { closeDays } from '../rollups/index.ts';
import { appendEvents, dayEvent } from './events.ts';

const MARKER = { chain: '*', key: 'bulk_load' } as const;

/** Tables whose secondary indexes cost more to maintain row by row than to rebuild. */
const BULK_TABLES = [
  'blocks', 'transactions', 'tx_recipients', 'internal_txs', 'token_transfers', 'withdrawals', 'slaves', 'migration_legs',
  'address_summary', 'address_daily', 'address_counterparties',
];

/** Taken by every change of the marker: two first syncs that begin at once do so one after the other. */
const BULK_LOAD_LOCK = 727_146_302;

interface IndexDefinition {
  name: string;
  definition: string;
  /** Its table; an index whose marker lacks it is built last. */
  table?: string;
}

/**
 * The marker's content: the dropped indexes, and the chains whose first syncs take part (null: one
 * process loads every chain, as `quarry generate` and the demo do; also a marker an older version wrote).
 */
interface Marker {
  indexes: IndexDefinition[];
  chains: ChainId[] | null;
}

async function readMarker(db: Db): Promise<Marker | null> {
  const [row] = await db.query<{ value: string }>('ingest.bulk.read_marker', sql`SELECT value FROM chain_settings WHERE chain = ${MARKER.chain} AND key = ${MARKER.key}`);
  if (!row) return null;
  const value = JSON.parse(row.value) as IndexDefinition[] | Marker;
  return Array.isArray(value) ? { indexes: value, chains: null } : value;
}

async function writeMarker(db: Db, marker: Marker): Promise<void> {
  await db.query(
    'ingest.bulk.mark',
    sql`INSERT INTO chain_settings (chain, key, value) VALUES (${MARKER.chain}, ${MARKER.key}, ${JSON.stringify(marker)})
        ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value`,
  );
}

async function lockBulkLoad(db: Db): Promise<void> {
  if (db.kind === 'postgres') await db.query('ingest.bulk.lock', sql`SELECT pg_advisory_xact_lock(${BULK_LOAD_LOCK})`);
}

export interface BulkLoad {
  /** Closes the days, rebuilds the indexes and ends the bulk load. */
  finish(hooks?: StepHooks<FinishStep>): Promise<void>;
}

/** The steps of finishing a bulk load: closing the days (counted in days), rebuilding the indexes (in bytes of their tables), analyzing. */
export type FinishStep = 'days' | 'indexes' | 'analyze';

/** What a long job reports as it goes: each step as it starts, with its units of work when known, and the units done. */
export interface StepHooks<S extends string> {
  onStep?: (step: S, total?: number, unit?: string) => void;
  onStepProgress?: (done: number) => void;
}

/** Whether a bulk load is under way (begun and not finished) in this store. */
export async function bulkLoadInProgress(store: Store): Promise<boolean> {
  const rows = await store.query('ingest.bulk.marker', sql`SELECT 1 FROM chain_settings WHERE chain = ${MARKER.chain} AND key = ${MARKER.key}`);
  return rows.length > 0;
}

/** Whether the store holds no block of any chain: a bulk load may begin. */
export async function storeIsEmpty(db: Db): Promise<boolean> {
  const rows = await db.query('ingest.bulk.any_block', sql`SELECT 1 FROM blocks LIMIT 1`);
  return rows.length === 0;
}

/**
 * Whether a run of `chain` from height `from` goes through the bulk load: a first sync from genesis
 * into a store without any block, or one that joins (or resumes) the load under way. A chain whose
 * part in a shared load is over follows block by block. From above genesis the pipeline seeds each
 * address's opening balance as it first appears, which only the block-by-block path does.
 */
export async function backfillsInBulk(store: Store, chain: ChainId, from: number): Promise<boolean> {
  const marker = await readMarker(store);
  if (marker) return marker.chains === null || marker.chains.includes(chain) || (from === 0 && !(await chainHasBlocks(store, chain)));
  return from === 0 && (await storeIsEmpty(store));
}

async function chainHasBlocks(db: Db, chain: ChainId): Promise<boolean> {
  const rows = await db.query('ingest.bulk.chain_block', sql`SELECT 1 FROM blocks WHERE chain = ${chain} LIMIT 1`);
  return rows.length > 0;
}

/**
 * Starts a bulk load into an empty store, joins the one another chain's first sync began, or
 * resumes the one a crash interrupted. `chain` is the chain this run loads (a node's indexer);
 * without it the run loads every chain.
 */
export async function beginBulkLoad(store: Store, logger?: Logger, chain?: ChainId): Promise<BulkLoad> {
  const begun = await store.transaction('ingest.bulk.begin', async (tx) => {
    await lockBulkLoad(tx);
    const marker = await readMarker(tx);
    if (marker) {
      const joins = chain !== undefined && marker.chains !== null && !marker.chains.includes(chain);
      if (joins) await writeMarker(tx, { ...marker, chains: [...marker.chains!, chain] });
      return joins ? 'joined' : 'resumed';
    }
    if (!(await storeIsEmpty(tx))) throw new Error('a bulk load needs an empty store; this one already holds blocks');
    const indexes = await secondaryIndexes(tx);
    await writeMarker(tx, { indexes, chains: chain === undefined ? null : [chain] });
    for (const index of indexes) await tx.exec('ingest.bulk.drop_index', `DROP INDEX IF EXISTS "${index.name}"`);
    return 'begun';
  });
  if (begun === 'begun') logger?.info('bulk load started: secondary indexes dropped');
  else if (begun === 'joined') logger?.info({ chain }, 'joining the bulk load another chain\'s first sync began');
  else logger?.info('resuming an interrupted bulk load');

  return {
    async finish(hooks = {}) {
      const marker = await readMarker(store);
      if (!marker) return;
      // A run that loads one chain of a shared load closes that chain's days only.
      await closeChainDays(store, chain !== undefined && marker.chains !== null ? [chain] : CHAINS, hooks, logger);
      const others = await store.transaction('ingest.bulk.leave', async (tx) => {
        await lockBulkLoad(tx);
        const now = await readMarker(tx);
        if (!now || now.chains === null || chain === undefined) return [];
        const left = now.chains.filter((c) => c !== chain);
        if (left.length > 0) await writeMarker(tx, { ...now, chains: left });
        return left;
      });
      if (others.length > 0) {
        logger?.info({ chain, waitingFor: others }, 'bulk load: days closed; the indexes are rebuilt when the other first syncs finish');
        return;
      }
      await buildIndexes(store, marker.indexes, hooks, logger);
      await store.query('ingest.bulk.unmark', sql`DELETE FROM chain_settings WHERE chain = ${MARKER.chain} AND key = ${MARKER.key}`);
      hooks.onStep?.('analyze');
      await analyzeAfterLoad(store, logger);
    },
  };
}

/**
 * Closes every closed day of `chains` (those with blocks) at once, after a load that left them
 * open, reporting the days as the 'days' step.
 */
export async function closeChainDays(store: Store, chains: readonly ChainId[], hooks: StepHooks<FinishStep> = {}, logger?: Logger): Promise<void> {
  const spans = [];
  for (const c of chains) spans.push(await daySpan(store, c));
  hooks.onStep?.('days', spans.reduce((n, span) => n + (span?.days ?? 0), 0), 'days');
  let daysClosed = 0;
  for (const span of spans) {
    if (!span) continue;
    await closeAllDays(store, span, logger);
    hooks.onStepProgress?.((daysClosed += span.days));
  }
}

/** Fresh planner statistics after a load (and on PostgreSQL the visibility map, for index-only scans). */
export async function analyzeAfterLoad(store: Store, logger?: Logger): Promise<void> {
  // VACUUM sets the visibility map, so index-only scans can skip the heap; the embedded store is
  // small enough to do without, and has one connection.
  if (store.kind === 'postgres') {
    const vacuumed = performance.now();
    const tables = await store.query<{ name: string }>(
      'ingest.bulk.tables',
      sql`SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' ORDER BY pg_relation_size(oid) DESC`,
    );
    // Names come from the catalog, quoted.
    await eachAtOnce(store, tables, (table) => store.exec('ingest.bulk.vacuum', `VACUUM (ANALYZE) "${table.name}"`));
    logger?.info({ tables: tables.length, ms: Math.round(performance.now() - vacuumed) }, 'bulk load: tables vacuumed and analyzed');
  } else {
    await store.exec('ingest.bulk.analyze', 'ANALYZE');
    // PGlite has no background checkpointer: recycle the load's WAL now.
    await store.exec('ingest.bulk.checkpoint', 'CHECKPOINT');
  }
}

/**
 * Index builds and VACUUMs at once on PostgreSQL: each is one backend on one core, so two keep a
 * second core busy (the server may give a big build parallel workers too). The embedded store has
 * one connection: one at a time.
 */
const FINISH_CONCURRENCY = 2;

async function eachAtOnce<T>(store: Store, items: readonly T[], run: (item: T) => Promise<unknown>): Promise<void> {
  const queue = [...items];
  const worker = async () => {
    try {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await run(item);
    } catch (error) {
      queue.length = 0; // the other worker stops after its current item
      throw error;
    }
  };
  // Every worker settles before the failure is thrown: nothing is left running on the store.
  const settled = await Promise.allSettled(Array.from({ length: store.kind === 'postgres' ? FINISH_CONCURRENCY : 1 }, worker));
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The indexes with the size of their tables, those of the largest first: the longest builds start first, and the two queues end together. */
async function largestTablesFirst(store: Store, indexes: IndexDefinition[]): Promise<(IndexDefinition & { bytes: number })[]> {
  const sizes = await store.query<{ name: string; bytes: string }>(
    'ingest.bulk.table_sizes',
    sql`SELECT relname AS name, pg_relation_size(oid)::text AS bytes FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname = ANY(${BULK_TABLES}::text[])`,
  );
  const bytes = new Map(sizes.map((row) => [row.name, Number(row.bytes)]));
  const sizeOf = (index: IndexDefinition) => (index.table === undefined ? 0 : (bytes.get(index.table) ?? 0));
  return indexes.map((index) => ({ ...index, bytes: sizeOf(index) })).sort((a, b) => b.bytes - a.bytes);
}

/** The secondary indexes of the bulk tables (primary keys stay: writes are idempotent through them). */
function secondaryIndexes(db: Db): Promise<IndexDefinition[]> {
  return db.query<IndexDefinition>(
    'ingest.bulk.indexes',
    sql`SELECT i.indexname AS name, i.indexdef AS definition, i.tablename AS "table" FROM pg_indexes i
        WHERE i.schemaname = 'public' AND i.tablename = ANY(${BULK_TABLES}::text[])
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.contype = 'p')
        ORDER BY i.indexname`,
  );
}

/** Builds `indexes` (those of the largest tables first) as their definitions say, skipping any that exists. */
async function buildIndexes(store: Store, indexes: IndexDefinition[], hooks: StepHooks<FinishStep>, logger?: Logger): Promise<void> {
  const started = performance.now();
  const byTableSize = await largestTablesFirst(store, indexes);
  hooks.onStep?.('indexes', Math.round(byTableSize.reduce((n, index) => n + index.bytes, 0) / 2 ** 20), 'MB of tables');
  let indexed = 0;
  await eachAtOnce(store, byTableSize, async (index) => {
    await store.transaction('ingest.bulk.create_index', async (tx) => {
      if (tx.kind === 'postgres') await tx.exec('ingest.bulk.memory', `SET LOCAL maintenance_work_mem = '512MB'`);
      await tx.exec(`ingest.bulk.create_index.${index.name}`, index.definition.replace(/^CREATE (UNIQUE )?INDEX /, 'CREATE $1INDEX IF NOT EXISTS '));
    });
    hooks.onStepProgress?.(Math.round((indexed += index.bytes) / 2 ** 20));
  });
  logger?.info({ indexes: indexes.length, ms: Math.round(performance.now() - started) }, 'bulk load: indexes rebuilt');
}

export interface NarrowedIndexes {
  /** Builds the whole indexes again and drops the served chain's copies. */
  restore(hooks?: StepHooks<FinishStep>): Promise<void>;
}

/**
 * For a bulk load of one chain into a store that serves another (the demo's pow while its pos is
 * served): each secondary index of the bulk tables is replaced by a copy over the served chain's
 * rows only (its definition with `chain = <served>` added to the predicate). The served chain's
 * statements name their chain, so they use the copies as they used the indexes, and the loading
 * chain's rows are written without a row in any of them: the load costs about what it costs with
 * the indexes dropped, and the served chain keeps its plans. `restore` builds the whole indexes
 * once the load is in, largest tables first, and drops the copies.
 *
 * On PostgreSQL a statement kept as a generic plan (`reusePlan`) cannot prove the copies'
 * predicate and scans its table until `restore` (the embedded store plans every statement with its
 * values). No marker records the copies: the one caller, the demo's first start, runs inside its
 * loading file, and a start that finds that file begins again on an empty schema.
 */
export async function narrowIndexesTo(store: Store, served: ChainId, logger?: Logger): Promise<NarrowedIndexes> {
  if (!CHAINS.includes(served)) throw new Error(`unknown chain ${served}`);
  const copyName = (index: IndexDefinition) => `${index.name}__${served}_only`;
  // The chain is one of CHAINS (checked above): a literal, as DDL takes no parameters.
  const predicate = `(chain = '${served}')`;
  const started = performance.now();
  const indexes = await store.transaction('ingest.bulk.narrow', async (tx) => {
    const all = await secondaryIndexes(tx);
    for (const index of all) {
      // pg_indexes' definition: CREATE [UNIQUE] INDEX name ON table USING method (columns) [INCLUDE (…)] [WHERE (predicate)].
      const renamed = index.definition.replace(/^CREATE (UNIQUE )?INDEX \S+ ON /, `CREATE $1INDEX "${copyName(index)}" ON `);
      const copy = renamed.includes(' WHERE ') ? renamed.replace(/ WHERE (.+)$/, ` WHERE ${predicate} AND $1`) : `${renamed} WHERE ${predicate}`;
      await tx.exec('ingest.bulk.narrow_index', copy);
      await tx.exec('ingest.bulk.drop_index', `DROP INDEX "${index.name}"`);
    }
    return all;
  });
  logger?.info({ indexes: indexes.length, served, ms: Math.round(performance.now() - started) }, `bulk load: indexes narrowed to ${served}'s rows`);
  return {
    async restore(hooks = {}) {
      await buildIndexes(store, indexes, hooks, logger);
      await store.transaction('ingest.bulk.widen', async (tx) => {
        for (const index of indexes) await tx.exec('ingest.bulk.drop_index', `DROP INDEX IF EXISTS "${copyName(index)}"`);
      });
    },
  };
}

/** The closed days of a chain's blocks (all but the tip's day). */
interface DaySpan {
  chain: ChainId;
  first: string;
  last: string;
  days: number;
}

async function daySpan(store: Store, chain: ChainId): Promise<DaySpan | null> {
  const [span] = await store.query<{ first: number | null; last: number | null }>(
    'ingest.bulk.span',
    sql`SELECT min(ts) AS first, max(ts) AS last FROM blocks WHERE chain = ${chain}`,
  );
  if (span?.first == null || span.last == null) return null;
  const first = formatDay(span.first);
  const last = lastClosedDay(span.last);
  return { chain, first, last, days: Math.max(0, (Date.parse(last) - Date.parse(first)) / 86_400_000 + 1) };
}

/** Computes the metrics of every closed day of a chain, with a `day` event for each (events.ts). */
async function closeAllDays(store: Store, span: DaySpan, logger?: Logger): Promise<void> {
  const started = performance.now();
  await store.transaction('ingest.bulk.close_days', async (tx) => {
    if (tx.kind === 'postgres') await tx.exec('ingest.bulk.memory', `SET LOCAL work_mem = '256MB'`);
    await closeDays(tx, span.chain, span.first, span.last);
    await appendEvents(tx, span.chain, eachDay(span.first, span.last).map(dayEvent));
  });
  logger?.info({ chain: span.chain, ms: Math.round(performance.now() - started) }, 'bulk load: days closed');
}
