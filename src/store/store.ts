/**
 * The store: one interface over the embedded PGlite and a PostgreSQL server. Same SQL, same
 * migrations. Every statement goes through `query(label, sql)`, which times it per label, retries
 * connection errors (outside transactions) and turns driver errors into `StoreError`s. The timing is
 * the one place statements are measured: `stats()` sums it per label, and observers (the Prometheus
 * metrics, api/metrics/) see each statement as it ends.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Sql } from 'sql-template-tag';
import { isClientTimeout, normaliseStoreError, StoreBusyError, StoreUnavailableError } from './errors.ts';
import { encodeCopyRows, type CopyValue } from './copy.ts';

export type Row = Record<string, unknown>;
export type StoreKind = 'pglite' | 'postgres';

/** Something that runs statements: the store itself, or an open transaction. */
export interface Db {
  readonly kind: StoreKind;
  /** Runs one parameterised statement and returns its rows. */
  query<R = Row>(label: string, statement: Sql, options?: QueryOptions): Promise<R[]>;
  /** Runs a script of statements without parameters (migrations, DDL). */
  exec(label: string, script: string): Promise<void>;
  /** Bulk-loads rows with COPY; returns the number of rows written. */
  copyRows(label: string, table: string, columns: readonly string[], rows: Iterable<readonly CopyValue[]>): Promise<number>;
}

export interface QueryOptions {
  /**
   * The statement's best plan is the same whatever its values (ordered index scans under a limit,
   * key lookups, a few blocks' rows), so the server may plan it once per connection and keep that
   * generic plan (a prepared statement; see PostgresDriverOptions.prepare, and inside a
   * transaction always). Leave it unset where a value changes the plan: a generic plan of a count
   * whose cost depends on how many rows an address has read a busy address's index in full. The
   * rollup engine sets it for the statements a rollup names in `keepsPlans`, in a followed chain's
   * steps (rollups/engine/step.ts); a rollup's SQL never does.
   */
  reusePlan?: boolean;
}

export interface Store extends Db {
  /** Runs `fn` in one transaction; rolled back if it throws. */
  transaction<T>(label: string, fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Per-label timings since start. */
  stats(): Map<string, QueryStat>;
  /**
   * Calls `observer` after every statement (and transaction, as `<label> (transaction)`) from now
   * on, with its label, its time and whether it failed; returns the function that stops it. An
   * observer must be quick and must not throw: it runs on every statement's path.
   */
  observe(observer: QueryObserver): () => void;
  /**
   * A connection of its own, outside the pool, held until closed: what a session-level advisory
   * lock needs (writer-lock.ts). On PostgreSQL a new server session; on PGlite, which has one
   * session, that session (closing it leaves the store open).
   */
  openSession(options?: SessionOptions): Promise<StoreSession>;
  close(): Promise<void>;
}

export interface SessionOptions {
  /** Client-side limit on each of its statements, in ms, instead of the store's own. */
  queryTimeoutMs?: number;
}

/** A store connection held for a while: statements run on it in order, and are never retried. */
export interface StoreSession {
  readonly kind: StoreKind;
  query<R = Row>(label: string, statement: Sql): Promise<R[]>;
  /** `listener` runs once if the connection is lost (a server restart, a network failure). */
  onLost(listener: () => void): void;
  close(): Promise<void>;
}

export type QueryObserver = (label: string, ms: number, failed: boolean) => void;

export interface QueryStat {
  count: number;
  totalMs: number;
  maxMs: number;
  errors: number;
}

/** What a driver (PGlite, node-postgres) must provide; the wrapper adds everything else. */
export interface DriverConnection {
  query(text: string, values: unknown[], options?: QueryOptions): Promise<Row[]>;
  exec(script: string): Promise<void>;
  copyFrom(copyStatement: string, tsv: string): Promise<void>;
}

export interface Driver {
  readonly kind: StoreKind;
  /** Borrows a connection for one statement (with that statement's options, which may choose the connection). */
  withConnection<T>(fn: (conn: DriverConnection) => Promise<T>, options?: QueryOptions): Promise<T>;
  /** Borrows a connection and wraps `fn` in BEGIN/COMMIT. */
  withTransaction<T>(fn: (conn: DriverConnection) => Promise<T>): Promise<T>;
  /** Opens a connection of its own (Store.openSession). */
  openSession(options?: SessionOptions): Promise<DriverSession>;
  close(): Promise<void>;
}

export interface DriverSession {
  query(text: string, values: unknown[]): Promise<Row[]>;
  onLost(listener: () => void): void;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** Called for statements slower than `slowQueryMs` (never with parameter values). */
  onSlowQuery?: (label: string, ms: number) => void;
  slowQueryMs?: number;
  /** Attempts for a statement outside a transaction when the store is unreachable. */
  retries?: number;
  retryDelayMs?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** When the work running in this async context must have started its statements (performance.now() ms). */
interface Deadline {
  at: number;
  ms: number;
}
const deadlines = new AsyncLocalStorage<Deadline>();

/**
 * Runs `fn` (and everything it starts) under a deadline `ms` from now: a statement that would start
 * after it is refused with `StoreBusyError` instead of running. The API gives each request one
 * (api/plugins/deadline.ts). The embedded store cannot interrupt a statement that has started (it
 * runs on the event loop, and PGlite does not honour `statement_timeout`), so the deadline is
 * checked where a statement starts: when it is issued, and on PGlite again when its turn comes in
 * the store's queue (pglite.ts). A request that waited its whole time behind others gives up then
 * rather than adding its work to a store that is already behind.
 */
export function withDeadline<T>(ms: number, fn: () => T): T {
  return deadlines.run({ at: performance.now() + ms, ms }, fn);
}

/**
 * Runs `fn` (and everything it starts) outside any deadline: for work one request starts on behalf
 * of many (a process-wide figure that the requests arriving meanwhile wait for too), which must not
 * fail because the request that happened to start it is out of time. Each statement is still
 * limited by the store's statement timeout.
 */
export function withoutDeadline<T>(fn: () => T): T {
  return deadlines.exit(fn);
}

/** Throws `StoreBusyError` when the work running in this async context is past its deadline. */
export function checkDeadline(label: string): void {
  const deadline = deadlines.getStore();
  if (deadline !== undefined && performance.now() > deadline.at) {
    throw new StoreBusyError(`${label} not started: the request is past its ${deadline.ms} ms deadline`, label, undefined);
  }
}

export function createStore(driver: Driver, options: StoreOptions = {}): Store {
  const stats = new Map<string, QueryStat>();
  const slowQueryMs = options.slowQueryMs ?? 1000;
  const retries = options.retries ?? 3;
  const retryDelayMs = options.retryDelayMs ?? 200;
  const observers = new Set<QueryObserver>();

  async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let stat = stats.get(label);
    if (!stat) {
      stat = { count: 0, totalMs: 0, maxMs: 0, errors: 0 };
      stats.set(label, stat);
    }
    let failed = false;
    try {
      checkDeadline(label);
      return await run();
    } catch (error) {
      failed = true;
      stat.errors++;
      throw normaliseStoreError(error, label);
    } finally {
      const ms = performance.now() - started;
      stat.count++;
      stat.totalMs += ms;
      if (ms > stat.maxMs) stat.maxMs = ms;
      if (ms >= slowQueryMs) options.onSlowQuery?.(label, ms);
      for (const observer of observers) observer(label, ms, failed);
    }
  }

  function bind(conn: () => (<T>(fn: (c: DriverConnection) => Promise<T>, options?: QueryOptions) => Promise<T>)): Db {
    const use = conn();
    return {
      kind: driver.kind,
      query: <R>(label: string, statement: Sql, queryOptions?: QueryOptions) =>
        timed(label, () => use((c) => c.query(statement.text, statement.values.map(toParam), queryOptions), queryOptions)) as Promise<R[]>,
      exec: (label, script) => timed(label, () => use((c) => c.exec(script))),
      copyRows: (label, table, columns, rows) => {
        if (!IDENTIFIER.test(table) || !columns.every((column) => IDENTIFIER.test(column))) {
          throw new Error(`copyRows(${label}): table and column names must be plain identifiers`);
        }
        const { tsv, count } = encodeCopyRows(rows);
        if (count === 0) return Promise.resolve(0);
        const statement = `COPY ${table} (${columns.join(', ')}) FROM STDIN`;
        return timed(label, () => use((c) => c.copyFrom(statement, tsv))).then(() => count);
      },
    };
  }

  // Outside a transaction: each statement borrows a connection, and is retried if the store is
  // unreachable (a read is always safe to repeat; writes go through transactions) — a pooled
  // connection the server dropped fails at once, and the next one works. A statement that ran out of
  // the client's time limit is not retried: the wait would only repeat.
  const direct = bind(() => async (fn, queryOptions) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await driver.withConnection(fn, queryOptions);
      } catch (error) {
        const normalised = normaliseStoreError(error, 'connection');
        if (!(normalised instanceof StoreUnavailableError) || isClientTimeout(error) || attempt >= retries) throw error;
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs * attempt));
      }
    }
  });

  return {
    ...direct,
    transaction: (label, fn) =>
      timed(`${label} (transaction)`, () => driver.withTransaction((conn) => fn(bind(() => (f) => f(conn))))),
    stats: () => stats,
    observe: (observer) => {
      // Wrapped, so one function observing twice is two observers, each stopped by its own call.
      const own: QueryObserver = (label, ms, failed) => observer(label, ms, failed);
      observers.add(own);
      return () => void observers.delete(own);
    },
    openSession: async (sessionOptions) => {
      const session = await timed('session.open', () => driver.openSession(sessionOptions));
      return {
        kind: driver.kind,
        query: <R>(label: string, statement: Sql) =>
          timed(label, () => session.query(statement.text, statement.values.map(toParam))) as Promise<R[]>,
        onLost: (listener) => session.onLost(listener),
        close: () => session.close(),
      };
    },
    close: () => driver.close(),
  };
}

/** Parameters go to the drivers as text where JavaScript types would be ambiguous. */
function toParam(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  return value;
}
