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

/** The database cannot be reached, or dropped the connection. */
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

const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
// SQLSTATE: class 08 connection exceptions, shutdown in progress, too many connections.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** Turns whatever a driver threw into a `StoreError` that names the query's label. */
export function normaliseStoreError(error: unknown, label: string): StoreError {
  if (error instanceof StoreError) return error;
  const err = error as { code?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' ? err.code : undefined;
  const message = typeof err?.message === 'string' ? err.message : String(error);
  if (code !== undefined && (CONNECTION_ERRNOS.has(code) || code.startsWith('08') || UNAVAILABLE_SQLSTATES.has(code))) {
    return new StoreUnavailableError(`store unavailable during ${label}: ${message}`, label, code, { cause: error });
  }
  if (/Connection terminated|connection ended|Client has encountered a connection error|timeout exceeded when trying to connect|PGlite is closed/i.test(message)) {
    return new StoreUnavailableError(`store unavailable during ${label}: ${message}`, label, code, { cause: error });
  }
  if (code === '57014') {
    return new QueryTimeoutError(`query ${label} timed out`, label, code, { cause: error });
  }
  return new StoreError(`query ${label} failed: ${message}`, label, code, { cause: error });
}
