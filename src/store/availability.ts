/**
 * Waiting out a store outage: `waitForStore` asks the store `SELECT 1` until it answers, backing off
 * exponentially (capped), and returns once it does. The indexer's supervisor calls it when a
 * statement failed with StoreUnavailableError, and the API's outage guard while it answers 503.
 */
import sql from 'sql-template-tag';
import { withoutDeadline, type Store } from './store.ts';

/** What `waitForStore` logs through: a pino logger, or anything with its two methods. */
export interface AvailabilityLogger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface WaitForStoreOptions {
  logger?: AvailabilityLogger;
  /** Stops the wait: `waitForStore` then throws StoreWaitAbortedError. */
  signal?: AbortSignal;
  /** Who waits, named in the log lines (`pos indexer`, `api`). */
  what?: string;
  /** First pause between two attempts, in ms (default 500); it doubles after each failure… */
  initialDelayMs?: number;
  /** …up to this (default 15 000). */
  maxDelayMs?: number;
}

export interface StoreWait {
  /** Attempts made, the successful one included. */
  attempts: number;
  /** How long the store did not answer, in ms (0 when the first attempt succeeded). */
  waitedMs: number;
}

/** The wait was stopped (its signal aborted) before the store answered. */
export class StoreWaitAbortedError extends Error {
  override name = 'StoreWaitAbortedError';
}

/**
 * Resolves once `store` answers `SELECT 1`. If the first attempt fails it logs one warning (with the
 * reason), retries after 0.5 s, 1 s, 2 s, … at most `maxDelayMs` apart, and logs the outage's length
 * when the store is back. Never gives up on its own; the signal ends it.
 */
export async function waitForStore(store: Store, options: WaitForStoreOptions = {}): Promise<StoreWait> {
  const { logger, signal, what = 'quarry' } = options;
  const initialDelayMs = options.initialDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 15_000;
  const started = performance.now();
  let delayMs = initialDelayMs;
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(signal, what);
    try {
      // The wait belongs to no request: the API starts it from the request that met the outage,
      // whose deadline (withDeadline) would otherwise refuse every ping once it has passed.
      await abortable(withoutDeadline(() => store.query('store.ping', sql`SELECT 1 AS ok`)), signal, what);
      const waitedMs = attempt === 1 ? 0 : Math.round(performance.now() - started);
      if (attempt > 1) logger?.info({ what, waitedMs, attempts: attempt }, `store is back after ${(waitedMs / 1000).toFixed(1)} s; ${what} resumes`);
      return { attempts: attempt, waitedMs };
    } catch (error) {
      if (error instanceof StoreWaitAbortedError) throw error;
      if (attempt === 1) {
        const reason = error instanceof Error ? error.message : String(error);
        logger?.warn({ what, reason }, `store unavailable; ${what} waits for it (retrying every ${initialDelayMs / 1000}-${maxDelayMs / 1000} s)`);
      }
    }
    await sleep(delayMs, signal, what);
    delayMs = Math.min(delayMs * 2, maxDelayMs);
  }
}

function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new StoreWaitAbortedError(`${what} stopped while waiting for the store`);
}

function sleep(ms: number, signal: AbortSignal | undefined, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return abortable(new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), signal, what).finally(() => clearTimeout(timer));
}

/** `promise`, or StoreWaitAbortedError as soon as `signal` aborts (whatever `promise` does later is ignored). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  if (!signal) return promise;
  throwIfAborted(signal, what);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new StoreWaitAbortedError(`${what} stopped while waiting for the store`));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
