/**
 * Pending transactions while an indexer follows a node (docs/api-transactions.md, "Pending
 * transactions"): from the moment it catches up, the indexer reads the node's pool every interval
 * (pos `txpool_content`, pow `GetLatestData` of its unconfirmed transactions: the node readers in
 * sources/evm-rpc/pool.ts and sources/qrl-grpc/pool.ts) and keeps what it holds in pending_txs
 * (pending-store.ts): newcomers with when they were first seen, what left the pool deleted. A
 * block's write deletes the transactions it mines (raw-store.ts). A failed read is logged and
 * recorded (pending_polls: the list's `pending_source`, the network health's `pending_pool`) and
 * tried again next interval: it never stops the chain.
 */
import type { Logger } from 'pino';
import { message } from '../sources/node-errors.ts';
import type { Store } from '../store/store.ts';
import type { PoolRead, PoolReader } from '../chain/model.ts';
import { PENDING_CAP, recordPollFailure, recordPollStarted, recordPollStopped, recordPollSuccess, writePending } from './pending-store.ts';
import { sleep } from './sleep.ts';

/** How often a following indexer reads its node's pool, unless told. */
export const DEFAULT_PENDING_INTERVAL_MS = 5000;

export interface PendingOptions {
  logger: Logger;
  /** Milliseconds between two polls; 0 turns polling off. */
  intervalMs: number;
  signal?: AbortSignal;
  /** Clock (Unix seconds). */
  now?: () => number;
}

const clock = (options: PendingOptions) => options.now ?? (() => Math.floor(Date.now() / 1000));

/** One poll: the pool read and written, or the failure recorded. Never throws for the node's sake. */
export async function pollPending(store: Store, reader: PoolReader, options: PendingOptions): Promise<{ ok: boolean; stored?: number }> {
  const now = clock(options);
  const { chain, method } = reader;
  let read: PoolRead;
  try {
    read = await reader.read(PENDING_CAP);
  } catch (error) {
    if (options.signal?.aborted) return { ok: false };
    const text = message(error);
    options.logger.warn({ chain, method, err: text }, `${chain} pending transactions not read from the node's pool`);
    // Node errors name their call already; others (a field that does not decode) get it here.
    await recordPollFailure(store, chain, method, options.intervalMs, now(), text.startsWith(method) ? text : `${method}: ${text}`);
    return { ok: false };
  }
  // Stopped while reading: the stop is recorded, a late read must not undo it.
  if (options.signal?.aborted) return { ok: false };
  const at = now();
  const written = await writePending(store, chain, read, at);
  if (options.signal?.aborted) return { ok: true, stored: written.stored };
  await recordPollSuccess(store, chain, method, options.intervalMs, at, read.poolSize);
  if (written.added > 0 || written.removed > 0) {
    options.logger.debug({ chain, pool: read.poolSize, stored: written.stored, added: written.added, removed: written.removed }, `${chain} pending transactions updated`);
  }
  if (read.poolSize !== null && read.poolSize > PENDING_CAP) {
    options.logger.debug({ chain, pool: read.poolSize, cap: PENDING_CAP }, `${chain} node's pool holds more than the pending cap: the newest are not stored`);
  }
  return { ok: true, stored: written.stored };
}

/** How long `done` waits for a poll in flight. */
const STOP_WAIT_MS = 2000;

export interface PendingFollower {
  /** Starts polling (once the indexer follows the head); later calls do nothing. */
  start(): void;
  /** Stops polling and records that the indexer no longer follows. */
  done(): Promise<void>;
}

/**
 * Polls `reader` every `intervalMs` from `start` until `done` (or the signal). A poll that fails
 * in the store is logged and tried next interval too; the store's own outage is the indexer's to
 * wait out, not this loop's.
 */
export function followPending(store: Store, reader: PoolReader, options: PendingOptions): PendingFollower {
  const { logger, signal } = options;
  const stop = new AbortController();
  const stopped = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  let loop: Promise<void> | null = null;
  return {
    start() {
      if (loop || stopped.aborted || options.intervalMs <= 0) return;
      logger.info({ chain: reader.chain, method: reader.method, intervalMs: options.intervalMs }, `${reader.chain}: reading the node's pool of pending transactions`);
      const now = clock(options);
      loop = (async () => {
        await recordPollStarted(store, reader.chain, reader.method, options.intervalMs, now()).catch((error: unknown) =>
          logger.warn({ chain: reader.chain, err: message(error) }, 'pending polling start not recorded'),
        );
        while (!stopped.aborted) {
          await pollPending(store, reader, { ...options, signal: stopped }).catch((error: unknown) => logger.warn({ chain: reader.chain, err: message(error) }, `${reader.chain} pending transactions not written`));
          await sleep(options.intervalMs, stopped);
        }
      })();
    },
    async done() {
      stop.abort();
      if (!loop) return;
      // A read in flight (a node that does not answer, retried) is not waited for long: it writes nothing once stopped.
      await Promise.race([loop, sleep(STOP_WAIT_MS)]);
      await recordPollStopped(store, reader.chain, clock(options)()).catch((error: unknown) => logger.warn({ chain: reader.chain, err: message(error) }, 'pending polling stop not recorded'));
    },
  };
}
