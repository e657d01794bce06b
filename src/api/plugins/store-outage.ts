/**
 * The API while the store is down. The first request that finds the store unreachable (a
 * StoreUnavailableError: refused, dropped, or past the client's time limit) marks an outage; from
 * then on every /api/v1 request is answered 503 at once, without waiting on the store again, and
 * /readyz answers 503. In the background `waitForStore` asks the store until it answers, and the
 * outage ends by itself: no restart.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { StoreWaitAbortedError, waitForStore } from '../../store/availability.ts';
import type { Store } from '../../store/store.ts';
import { problem } from '../problem.ts';
import { sendProblem, STORE_RETRY_AFTER_SECONDS } from './errors.ts';

export interface StoreOutage {
  /** True from a failed statement until the store answers again. */
  readonly down: boolean;
  /** A statement found the store unreachable: starts an outage (once) and the wait for its end. */
  report(): void;
  /** Stops the background wait (the app closes). */
  close(): void;
}

export function createStoreOutage(store: Store, logger: FastifyBaseLogger): StoreOutage {
  let down = false;
  const controller = new AbortController();
  return {
    get down() {
      return down;
    },
    report() {
      if (down || controller.signal.aborted) return;
      down = true;
      waitForStore(store, { logger, signal: controller.signal, what: 'api' }).then(
        () => {
          down = false;
        },
        (error: unknown) => {
          if (!(error instanceof StoreWaitAbortedError)) logger.error({ err: error }, 'waiting for the store failed');
        },
      );
    },
    close() {
      controller.abort();
    },
  };
}

/** Answers every request of `app` (the /api/v1 scope, after authentication) with 503 during an outage. */
export function registerOutageGuard(app: FastifyInstance, outage: StoreOutage): void {
  app.addHook('onRequest', async (_request, reply) => {
    if (!outage.down) return;
    return sendProblem(reply, problem(503, 'the data store is unavailable; retry shortly'), { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) });
  });
}
