/** The server store: PostgreSQL through a node-postgres pool. */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { StoreUnavailableError, normaliseStoreError } from './errors.ts';
import type { Driver, DriverConnection, Row } from './store.ts';

const { Pool, types } = pg;

// Same value shapes as the embedded driver: int8 as number (counts, heights and times only),
// NUMERIC amounts as strings (in arrays too: node-postgres would parse their elements as floats),
// dates and timestamps as their text.
const NUMERIC_ARRAY = 1231;
type TypeId = Parameters<typeof types.getTypeParser>[0];
// The text[] parser: the typings' TypeId lists no array types.
const parseTextArray = types.getTypeParser(1009 as unknown as TypeId) as (value: string) => (string | null)[];
const typeParsers: Record<number, (value: string) => unknown> = {
  [types.builtins.INT8]: (value) => Number(value),
  [NUMERIC_ARRAY]: parseTextArray,
  [types.builtins.DATE]: (value) => value,
  [types.builtins.TIMESTAMP]: (value) => value,
  [types.builtins.TIMESTAMPTZ]: (value) => value,
};
const customTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    typeParsers[oid] ?? types.getTypeParser(oid, format)) as typeof types.getTypeParser,
};

export interface PostgresDriverOptions {
  poolSize?: number;
  /** Statement time limit in ms; unset means none (the indexer's long rollups). */
  statementTimeoutMs?: number;
  applicationName?: string;
  /** Allow PostgreSQL's JIT compilation (default off; worth it only for long analytical statements). */
  jit?: boolean;
  /**
   * Allow parallel query plans (default on). The API turns them off: its statements are bounded
   * index reads, and a plan kept for any values (`prepare`) that guesses thousands of rows starts
   * two workers for a few rows — milliseconds each time, where the read itself takes a tenth.
   */
  parallel?: boolean;
  /**
   * Run the statements that ask for it (`reusePlan`) as named prepared statements on connections of
   * their own, set to keep the generic plan (`plan_cache_mode = force_generic_plan`): each
   * connection parses and plans them once, where planning costs more than running them (the feed's
   * union of index scans plans for several times as long as it runs). Left to its default,
   * PostgreSQL re-plans a prepared statement on every execution whenever the generic plan's
   * estimate is costlier than the custom plans' — which it is for the feed. The other
   * statements keep connections with the default, since a generic plan there can be far worse
   * (see `QueryOptions.reusePlan`). The pool size is split between the two kinds of connection
   * (half each, at least one of each). For the API's store. Inside a transaction (any store's) they
   * are named and run with the generic plan forced for each alone.
   */
  prepare?: boolean;
  /**
   * Client-side limit on one statement in ms (node-postgres `query_timeout`): past it the statement
   * fails as StoreUnavailableError and its connection is dropped. It catches what the server's
   * `statement_timeout` cannot: a server or network that stopped answering. Set it a little above
   * the statement timeout, so that a server that answers always cancels first. Unset means none.
   */
  queryTimeoutMs?: number;
  /** Longest wait for a new connection, in ms (default 5000). */
  connectTimeoutMs?: number;
}

/**
 * TCP keep-alive on every connection, first probe after this many ms of silence: an idle pooled
 * connection, or the writer lock's session, whose server vanished without closing it is found dead
 * by the kernel instead of waiting forever for an answer.
 */
const KEEPALIVE_INITIAL_DELAY_MS = 10_000;

export function createPostgresDriver(url: string, options: PostgresDriverOptions = {}): Driver {
  const poolSize = options.poolSize ?? 10;
  // JIT compiles any query the planner estimates as costly; on an API's short indexed reads
  // those estimates (a busy address) make millisecond statements hundreds of times slower.
  // Keep-alive from the server's side too (TCP connections only): the session of a client whose
  // machine vanished ends within a minute or so instead of the system default of hours — and with
  // it any lock it held, such as a writer lock (writer-lock.ts) a restarted writer elsewhere needs.
  const settings = [
    '-c TimeZone=UTC',
    '-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=6',
    ...(options.jit ? [] : ['-c jit=off']),
    ...(options.parallel === false ? ['-c max_parallel_workers_per_gather=0'] : []),
  ].join(' ');
  const clientConfig = (extraSettings = ''): pg.ClientConfig => ({
    connectionString: url,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS,
    application_name: options.applicationName ?? 'quarry',
    types: customTypes,
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    ...(options.queryTimeoutMs ? { query_timeout: options.queryTimeoutMs } : {}),
    options: settings + extraSettings,
  });
  const newPool = (max: number, extraSettings = '') => {
    const pool = new Pool({ ...clientConfig(extraSettings), max, idleTimeoutMillis: 30_000 });
    // An idle client that loses its connection emits here; the pool discards it.
    pool.on('error', () => {});
    // A client checked out between two statements (in a transaction, a COPY) emits on itself: without
    // a listener a server restart would end the process. The statement in flight or the next one
    // fails with StoreUnavailableError, and the pool drops the client when it is released.
    pool.on('connect', (client) => client.on('error', () => {}));
    return pool;
  };
  const plannedOnceSize = options.prepare ? Math.max(1, Math.ceil(poolSize / 2)) : 0;
  const pool = newPool(Math.max(1, poolSize - plannedOnceSize));
  const plannedOncePool = options.prepare ? newPool(plannedOnceSize, ' -c plan_cache_mode=force_generic_plan') : null;

  // Statements are named (prepared) only where the generic plan is kept: prepared on a connection
  // in the default mode they would be planned again at each execution all the same.
  const connection = (client: pg.PoolClient, plansKept: boolean): DriverConnection => ({
    query: async (text, values, queryOptions) => {
      const name = plansKept && queryOptions?.reusePlan ? statementNames.nameOf(text) : undefined;
      return (await client.query<Row>(name ? { name, text, values } : { text, values })).rows;
    },
    exec: async (script) => {
      await client.query(script);
    },
    copyFrom: async (statement, tsv) => {
      const stream = client.query(copyFrom(statement));
      await pipeline(Readable.from(chunks(tsv)), stream);
    },
  });

  // A transaction's connection keeps the default mode; a `reusePlan` statement runs there named,
  // with the generic plan forced for it alone (SET LOCAL, undone before the next other statement,
  // script or COPY: one more round trip at each change of kind, none between two statements of the
  // same kind).
  const transactionConnection = (client: pg.PoolClient): DriverConnection => {
    const plain = connection(client, false);
    let genericForced = false;
    const forceGeneric = async (force: boolean) => {
      if (force === genericForced) return;
      await client.query(`SET LOCAL plan_cache_mode = ${force ? 'force_generic_plan' : 'DEFAULT'}`);
      genericForced = force;
    };
    return {
      query: async (text, values, queryOptions) => {
        const name = queryOptions?.reusePlan ? statementNames.nameOf(text) : undefined;
        await forceGeneric(name !== undefined);
        return (await client.query<Row>(name ? { name, text, values } : { text, values })).rows;
      },
      exec: async (script) => {
        await forceGeneric(false);
        await plain.exec(script);
      },
      copyFrom: async (statement, tsv) => {
        await forceGeneric(false);
        await plain.copyFrom(statement, tsv);
      },
    };
  };

  return {
    kind: 'postgres',
    async withConnection(fn, queryOptions) {
      const plansKept = Boolean(queryOptions?.reusePlan && plannedOncePool);
      const client = await (plansKept ? plannedOncePool! : pool).connect();
      let broken = false;
      try {
        return await fn(connection(client, plansKept));
      } catch (error) {
        broken = connectionFailed(error);
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async withTransaction(fn) {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query('BEGIN');
        const result = await fn(transactionConnection(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // A connection that failed (or whose statement never answered) is dropped, not asked to
        // roll back: the server rolls back a transaction whose session ends.
        broken = connectionFailed(error);
        if (!broken) {
          try {
            await client.query('ROLLBACK');
          } catch {
            broken = true;
          }
        }
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async openSession(sessionOptions) {
      const client = new pg.Client({
        ...clientConfig(),
        ...(sessionOptions?.queryTimeoutMs ? { query_timeout: sessionOptions.queryTimeoutMs } : {}),
      });
      const lost: (() => void)[] = [];
      let ended = false;
      // Without a listener, a session whose server goes away would take the process down.
      client.on('error', () => {
        if (ended) return;
        ended = true;
        for (const listener of lost) listener();
      });
      client.on('end', () => {
        if (ended) return;
        ended = true;
        for (const listener of lost) listener();
      });
      try {
        await client.connect();
      } catch (error) {
        ended = true;
        await client.end().catch(() => {});
        throw error;
      }
      return {
        query: async (text, values) => (await client.query<Row>({ text, values })).rows,
        onLost: (listener) => {
          lost.push(listener);
        },
        close: async () => {
          ended = true;
          // A session whose server vanished may never finish a polite close: do not wait on it.
          await Promise.race([client.end().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
        },
      };
    },
    close: async () => {
      await Promise.all([pool.end(), plannedOncePool?.end()]);
    },
  };
}

/**
 * Names of prepared statements, by statement text. Every connection prepares a named statement the
 * first time it runs it and keeps it while it lives, so the number of names bounds the statements
 * each server connection holds: texts beyond the budget run unnamed (parsed and planned each time).
 * The statements that reuse plans come from a fixed set of shapes (tens), all within it.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  constructor(private readonly budget: number) {}

  nameOf(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= this.budget) return known;
    const name = `q_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    this.names.set(text, name);
    return name;
  }
}

const statementNames = new StatementNames(500);

/** Whether `error` says the connection itself failed: it must not go back to the pool. */
function connectionFailed(error: unknown): boolean {
  return normaliseStoreError(error, 'connection') instanceof StoreUnavailableError;
}

/** Feeds COPY in 1 MiB pieces rather than one huge buffer. */
function* chunks(text: string, size = 1 << 20): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}
