/**
 * One error taxonomy for the store. Callers branch on the class: `StoreUnavailableError` is
 * retryable (the API answers 503, the indexer backs off and retries); anything else is a bug or bad
 * data and is not retried.
 */
export class StoreError extends Error {
  constructor(
    message: string,
    readonly label: string,
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
  get retryable(): boolean {
    return false;
  }
}

/**
 * The database cannot be reached, dropped the connection, or never answered a statement within the
 * client's own limit (`query_timeout`, the connect timeout, TCP keep-alive): what a server restart, a
 * failover or a silent network loss looks like from here. Retryable once the store answers again
 * (availability.ts).
 */
export class StoreUnavailableError extends StoreError {
  override name = 'StoreUnavailableError';
  override get retryable(): boolean {
    return true;
  }
}

/** A statement ran past its time limit (`statement_timeout`). */
export class QueryTimeoutError extends StoreError {
  override name = 'QueryTimeoutError';
  override get retryable(): boolean {
    return true;
  }
}

/**
 * A statement refused because the work it belongs to (an API request) is past its deadline
 * (store.ts, `withDeadline`): the store was busy with other work for the whole of it. Nothing ran;
 * retrying later is safe.
 */
export class StoreBusyError extends StoreError {
  override name = 'StoreBusyError';
  override get retryable(): boolean {
    return true;
  }
}

const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
// SQLSTATE: class 08 connection exceptions; admin shutdown ("terminating connection due to
// administrator command"), crash shutdown, cannot connect now (starting up or shutting down),
// database dropped; too many connections.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P04', '53300']);
// node-postgres's own words for a connection that failed or never answered: a dropped socket, its
// connect timeout ("timeout expired", "…due to connection timeout"), the pool's connect timeout, its
// client-side statement limit (`query_timeout`: "Query read timeout"), a client it already gave up on.
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection ended|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|timeout expired|Query read timeout|PGlite is closed/i;

/** Turns whatever a driver threw into a `StoreError` that names the query's label. */
export function normaliseStoreError(error: unknown, label: string): StoreError {
  if (error instanceof StoreError) return error;
  const err = error as { code?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const message = typeof err?.message === 'string' ? err.message : String(error);
  if (isUnavailable(code, message, error instanceof AggregateError ? error.errors : undefined)) {
    return new StoreUnavailableError(`store unavailable during ${label}: ${message}`, label, code, { cause: error });
  }
  if (code === '57014') {
    return new QueryTimeoutError(`query ${label} timed out`, label, code, { cause: error });
  }
  return new StoreError(`query ${label} failed: ${message}`, label, code, { cause: error });
}

/**
 * Whether a driver error means the connection (not the statement) failed. Node reports a refused
 * connection to a name with several addresses as an AggregateError whose own code may be missing:
 * its inner errors are checked too.
 */
function isUnavailable(code: string | undefined, message: string, inner?: unknown[]): boolean {
  if (code !== undefined && (CONNECTION_ERRNOS.has(code) || code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code))) return true;
  if (UNAVAILABLE_MESSAGES.test(message)) return true;
  return (inner ?? []).some((e) => {
    const err = e as { code?: unknown; message?: unknown };
    return isUnavailable(typeof err?.code === 'string' ? err.code : undefined, typeof err?.message === 'string' ? err.message : '');
  });
}

const CLIENT_TIMEOUT_MESSAGES = /Query read timeout|timeout expired|due to connection timeout|timeout exceeded when trying to connect/i;

/**
 * Whether the store was given up on by the client's own time limit (a statement's `query_timeout`,
 * a connect timeout) rather than refusing or dropping the connection. Retrying such a statement at
 * once would mostly wait the same time again.
 */
export function isClientTimeout(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (CLIENT_TIMEOUT_MESSAGES.test(e.message)) return true;
  }
  return false;
}

/** The embedded store's directory is held by another process (pglite.ts: one process at a time). */
export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
}
