/**
 * HTTP load with autocannon. autocannon's own latency histogram has a resolution of 1 ms, too
 * coarse for answers that take one or two, so every response time it reports (in fractional ms)
 * is kept here and the percentiles are computed from them exactly.
 */
import http from 'node:http';
import autocannon from 'autocannon';
import { round } from './proc.ts';

/** The API process's static route (bench/api-server.ts): `${STATIC_PREFIX}/<bytes>`. */
export const STATIC_PREFIX = '/api/v1/_bench/static';

export interface LoadOptions {
  connections: number;
  /** Seconds of load; or `amount` requests. */
  seconds?: number;
  amount?: number;
  headers?: Record<string, string>;
}

export interface LoadResult {
  connections: number;
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** Answers other than 2xx, and connection errors and timeouts: each is a failure. */
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
  bytesPerResponse: number;
}

export async function runLoad(url: string, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let bytes = 0;
  const started = performance.now();
  // The rate is measured up to the last answer, not to the end of autocannon's run.
  let lastAnswer = started;
  const instance = autocannon({
    url,
    connections: options.connections,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.seconds ?? 1 }),
    headers: options.headers ?? {},
    timeout: 10,
    // autocannon ends a run on its next sampling tick (every second by default): tick often.
    sampleInt: 50,
  });
  instance.on('response', (_client, statusCode, resBytes, responseTime) => {
    latencies.push(responseTime);
    lastAnswer = performance.now();
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    bytes += resBytes;
  });
  const result = await instance;
  return summarize({ connections: options.connections, latencies, statuses, bytes, errors: result.errors + result.timeouts, seconds: (lastAnswer - started) / 1000 });
}

/** A load's figures from every response time (ms), status count and byte count. */
function summarize(load: { connections: number; latencies: number[]; statuses: Record<string, number>; bytes: number; errors: number; seconds: number }): LoadResult {
  const { latencies, statuses } = load;
  const elapsed = Math.max(0.001, load.seconds);
  latencies.sort((a, b) => a - b);
  const non2xx = Object.entries(statuses).reduce((n, [code, count]) => (code.startsWith('2') ? n : n + count), 0);
  return {
    connections: load.connections,
    requests: latencies.length,
    seconds: round(elapsed, 2),
    rps: Math.round(latencies.length / elapsed),
    p50: round(percentile(latencies, 50), 2),
    p90: round(percentile(latencies, 90), 2),
    p99: round(percentile(latencies, 99), 2),
    max: round(latencies.at(-1) ?? 0, 2),
    mean: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length), 2),
    non2xx,
    errors: load.errors,
    statuses,
    bytesPerResponse: Math.round(load.bytes / Math.max(1, latencies.length)),
  };
}

/**
 * One connection, one request after another, for `seconds`, with node:http and a keep-alive agent;
 * the response time is from the request to the body's last byte, the body kept as bytes. For
 * compressed answers: autocannon appends every body to a string (`req.body += data`), and decoding
 * a compressed body as UTF-8 costs the client more than the server's whole answer (a 96 KB brotli
 * body about 1.2 ms, against 0.03 ms through node:http), so its figures would measure the client.
 */
export async function runSequential(url: string, options: { seconds: number; headers?: Record<string, string> }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let bytes = 0;
  let errors = 0;
  const once = () =>
    new Promise<void>((resolve) => {
      const sent = performance.now();
      const request = http.get(url, { agent, headers: options.headers ?? {}, timeout: 10_000 }, (response) => {
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('end', () => {
          latencies.push(performance.now() - sent);
          statuses[response.statusCode ?? 0] = (statuses[response.statusCode ?? 0] ?? 0) + 1;
          resolve();
        });
      });
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.on('error', () => {
        errors++;
        resolve();
      });
    });
  const started = performance.now();
  try {
    while (performance.now() - started < options.seconds * 1000) await once();
  } finally {
    agent.destroy();
  }
  // Body bytes only (autocannon's figure includes the headers).
  return summarize({ connections: 1, latencies, statuses, bytes, errors, seconds: (performance.now() - started) / 1000 });
}

/** Nearest-rank percentile of sorted values (0 for none). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}
