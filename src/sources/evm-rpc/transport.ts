/**
 * The JSON-RPC transport: HTTP with batching, bounded concurrency, timeouts and retries.
 *
 * Why not viem's http transport: it batches and retries, but retries a whole batch on any error,
 * cannot bound the number of requests in flight, does not honour `Retry-After` on 429, and does
 * not re-send only the calls of a batch that failed transiently. An indexer backfilling against a
 * rate-limited gateway needs all four.
 *
 * Calls made in the same tick are gathered into batches of at most `batchSize`; at most
 * `concurrency` HTTP requests are in flight. A retryable failure (network error, timeout, HTTP
 * 408/429/5xx, a rate-limit error code) puts the affected calls back in the queue after an
 * exponential backoff with jitter (or the server's `Retry-After`); after `retries` attempts the
 * call fails with a retryable `RpcError`, so the caller decides whether to wait longer.
 */
import { errorFromRpc, RpcError } from './errors.ts';

export interface RpcClientOptions {
  url: string;
  /** Most calls per HTTP request; 1 disables batching. Default 100. */
  batchSize?: number;
  /** Most HTTP requests in flight. Default 8. */
  concurrency?: number;
  /** Per HTTP request. Default 30 s. */
  timeoutMs?: number;
  /** Attempts of a call that fails transiently, the first included. Default 6. */
  retries?: number;
  /** First backoff; doubles per attempt up to `maxBackoffMs`. Default 200 ms. */
  backoffMs?: number;
  maxBackoffMs?: number;
  headers?: Record<string, string>;
  /** Called on each retry (for logs). */
  onRetry?: (info: { method: string; attempt: number; delayMs: number; error: RpcError }) => void;
  fetch?: typeof fetch;
}

export interface RpcClient {
  readonly url: string;
  /** Sends one call (batched with the other calls of this tick) and resolves with its raw `result`. */
  request(method: string, params?: readonly unknown[]): Promise<unknown>;
  stats(): RpcStats;
  /** Fails every queued call and refuses new ones. */
  close(): void;
}

export interface RpcStats {
  httpRequests: number;
  calls: number;
  retries: number;
  failures: number;
  /** Whether the node accepted batches (false after it refused one). */
  batching: boolean;
}

interface PendingCall {
  id: number;
  method: string;
  params: readonly unknown[];
  attempt: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export function createRpcClient(options: RpcClientOptions): RpcClient {
  const doFetch = options.fetch ?? fetch;
  let batchSize = Math.max(1, options.batchSize ?? 100);
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retries = Math.max(1, options.retries ?? 6);
  const backoffMs = options.backoffMs ?? 200;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };

  const stats: RpcStats = { httpRequests: 0, calls: 0, retries: 0, failures: 0, batching: batchSize > 1 };
  let nextId = 1;
  let queue: PendingCall[] = [];
  let flushScheduled = false;
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const timers = new Map<NodeJS.Timeout, PendingCall[]>();
  let closed = false;

  function enqueue(call: PendingCall): void {
    queue.push(call);
    if (!flushScheduled) {
      flushScheduled = true;
      // setImmediate, not a microtask: lets every call issued by the current burst of promise
      // continuations join the same batch.
      setImmediate(flush);
    }
  }

  function flush(): void {
    flushScheduled = false;
    const calls = queue;
    queue = [];
    for (let i = 0; i < calls.length; i += batchSize) void send(calls.slice(i, i + batchSize));
  }

  async function acquire(): Promise<void> {
    if (inFlight < concurrency) {
      inFlight++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  }

  function release(): void {
    const next = waiting.shift();
    if (next) next();
    else inFlight--;
  }

  async function send(calls: PendingCall[]): Promise<void> {
    await acquire();
    try {
      if (closed) throw new RpcError('RPC client closed', { retryable: false });
      const batched = stats.batching && calls.length > 1;
      const body = batched
        ? calls.map((c) => ({ jsonrpc: '2.0', id: c.id, method: c.method, params: c.params }))
        : { jsonrpc: '2.0', id: calls[0]!.id, method: calls[0]!.method, params: calls[0]!.params };
      if (!batched && calls.length > 1) {
        // Batching was switched off while these calls waited: send them one by one.
        for (const call of calls) enqueue(call);
        return;
      }
      stats.httpRequests++;
      let response: Response;
      try {
        response = await doFetch(options.url, {
          method: 'POST',
          headers,
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
        throw new RpcError(timedOut ? `no answer within ${timeoutMs} ms` : `cannot reach node: ${describe(error)}`, {
          retryable: true,
          cause: error,
        });
      }
      const text = await response.text().catch((error: unknown) => {
        throw new RpcError(`reading the response failed: ${describe(error)}`, { retryable: true, cause: error });
      });
      if (!response.ok) {
        const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
        const error = new RpcError(`HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`, { retryable, code: response.status });
        const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
        fail(calls, error, retryAfter);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        // A proxy's HTML error page or a truncated body: worth another try.
        throw new RpcError(`response is not JSON: ${text.slice(0, 120)}`, { retryable: true });
      }
      settle(calls, parsed, batched);
    } catch (error) {
      const rpcError = error instanceof RpcError ? error : new RpcError(describe(error), { retryable: false, cause: error });
      fail(calls, rpcError);
    } finally {
      release();
    }
  }

  function settle(calls: PendingCall[], parsed: unknown, batched: boolean): void {
    if (batched && !Array.isArray(parsed)) {
      // A single error object in answer to a batch: the node or gateway refuses batches (or is
      // rate limiting the whole request). Refusal: go on without batching.
      const error = isObject(parsed) && isObject(parsed.error) ? errorFromRpc('batch', parsed.error) : undefined;
      if (error && !error.retryable) {
        stats.batching = false;
        batchSize = 1;
        for (const call of calls) enqueue(call);
        return;
      }
      const failure = error ?? new RpcError('batch answered with a non-array', { retryable: true });
      fail(calls, failure);
      return;
    }
    const answers = Array.isArray(parsed) ? parsed : [parsed];
    const byId = new Map<number, Record<string, unknown>>();
    for (const answer of answers) if (isObject(answer) && typeof answer.id === 'number') byId.set(answer.id, answer);
    for (const call of calls) {
      const answer = byId.get(call.id);
      if (!answer) {
        fail([call], new RpcError(`${call.method}: no answer for this call in the response`, { retryable: true, method: call.method }));
      } else if (answer.error !== undefined && answer.error !== null) {
        fail([call], isObject(answer.error) ? errorFromRpc(call.method, answer.error) : new RpcError(`${call.method}: ${String(answer.error)}`, { retryable: false, method: call.method }));
      } else if (!('result' in answer)) {
        fail([call], new RpcError(`${call.method}: answer has neither result nor error`, { retryable: true, method: call.method }));
      } else {
        stats.calls++;
        call.resolve(answer.result);
      }
    }
  }

  /**
   * Retries the calls that may be retried, rejects the rest. Calls that the server asked to come back
   * after `Retry-After` share one timer and go again as one batch; otherwise each waits its own
   * jittered backoff, so a burst of failures does not return as a burst.
   */
  function fail(calls: PendingCall[], error: RpcError, retryAfterMs?: number): void {
    const retried: PendingCall[] = [];
    for (const call of calls) {
      if (error.retryable && call.attempt < retries && !closed) {
        retried.push(call);
        continue;
      }
      stats.failures++;
      // The message names the method even when the failure was the transport's.
      call.reject(error.method ? error : new RpcError(`${call.method}: ${error.message}`, { retryable: error.retryable, code: error.code, method: call.method, cause: error }));
    }
    if (retried.length === 0) return;
    const later = (group: PendingCall[], delay: number) => {
      for (const call of group) {
        stats.retries++;
        options.onRetry?.({ method: call.method, attempt: call.attempt, delayMs: Math.round(delay), error });
        call.attempt++;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        for (const call of group) enqueue(call);
      }, delay);
      timers.set(timer, group);
    };
    if (retryAfterMs !== undefined) later(retried, retryAfterMs);
    else for (const call of retried) later([call], Math.min(maxBackoffMs, backoffMs * 2 ** (call.attempt - 1)) * (0.5 + Math.random() / 2));
  }

  return {
    url: options.url,
    request(method, params = []) {
      if (closed) return Promise.reject(new RpcError('RPC client closed', { retryable: false, method }));
      return new Promise((resolve, reject) => enqueue({ id: nextId++, method, params, attempt: 1, resolve, reject }));
    },
    stats: () => ({ ...stats }),
    close() {
      closed = true;
      const pending = [...queue, ...[...timers.values()].flat()];
      for (const timer of timers.keys()) clearTimeout(timer);
      timers.clear();
      queue = [];
      for (const call of pending) call.reject(new RpcError('RPC client closed', { retryable: false, method: call.method }));
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

/** `Retry-After` in seconds or as an HTTP date; capped at a minute so one header cannot stall us. */
function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, 60_000) : undefined;
}
