/**
 * What every Quarry process's Prometheus metrics share (docs/metrics-prometheus.md): a registry of
 * its own per process part (an app, an indexer), every name prefixed `quarry_`, the process's own
 * figures (CPU, memory, event loop) included, durations in seconds with buckets around the API's
 * 10 ms target, the store's statements timed by label, and a small HTTP server for a metrics port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Store } from '../../store/store.ts';

export const METRIC_PREFIX = 'quarry_';

/** Seconds: 1 ms to 2.5 s, dense around the 10 ms target so a p99 near it is resolved. */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * A registry with the process figures (prefixed `quarry_`). Each app or indexer has its own, so
 * several in one process (tests, `quarry demo`) never collide on a name.
 */
export function newRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return registry;
}

/**
 * Times every statement `store` runs, by its label (the store names each statement: store.ts), and
 * counts the failed ones. Returns the function that stops observing.
 */
export function observeStoreQueries(registry: Registry, store: Store): () => void {
  const duration = new Histogram({
    name: `${METRIC_PREFIX}store_query_duration_seconds`,
    help: 'Time of each store statement, by its label (a transaction as "<label> (transaction)").',
    labelNames: ['statement'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const errors = new Counter({
    name: `${METRIC_PREFIX}store_query_errors_total`,
    help: 'Store statements that failed, by label.',
    labelNames: ['statement'],
    registers: [registry],
  });
  return store.observe((label, ms, failed) => {
    duration.observe({ statement: label }, ms / 1000);
    if (failed) errors.inc({ statement: label });
  });
}

export interface MetricsServer {
  /** `http://host:port/metrics` */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `registry` at `GET /metrics` on a port of its own (anything else: 404). No key: bind it to
 * an interface only the scraper reaches.
 */
export async function serveMetrics(registry: { metrics(): Promise<string>; contentType: string }, host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
