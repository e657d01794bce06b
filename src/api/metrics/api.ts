/**
 * The API's Prometheus metrics (docs/metrics-prometheus.md): requests by route pattern and status
 * with their latency, rate-limit refusals, the answer cache's hits and misses, the store's
 * statements by label, and the chains' state read at scrape time (chains.ts). Served at /metrics on
 * the API's port without a key, or on a port of its own (`QUARRY_METRICS_PORT`, api/server.ts), or
 * not at all (`QUARRY_METRICS=off`). The route is left out of the OpenAPI document: it is for the
 * operator's scraper, not for API clients, and answers text, not JSON.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { Store } from '../../store/store.ts';
import { CHAIN_STATE_TTL_MS, cachedReader, readMonitoringState, registerChainMetrics } from './chains.ts';
import { DURATION_BUCKETS, METRIC_PREFIX, newRegistry, observeStoreQueries } from './registry.ts';

export const METRICS_PATH = '/metrics';

/** The methods counted by name; any other is counted as `other` (the label's values stay few). */
const METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE']);

/** The route label of a request no route matched (404s): never its raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface MetricsDeps {
  store: Store;
  /** Served on the app itself (false: on a port of its own, api/server.ts). */
  route: boolean;
  /** The store is known to be down: a scrape does not wait on it. */
  storeDown?: () => boolean;
  /**
   * What the route answers instead of this registry's own text: under `quarry serve --workers N`,
   * every worker's metrics combined (src/cli/cluster.ts).
   */
  text?: () => Promise<string>;
}

/**
 * Registers the hooks that measure every request and, when `deps.route`, the /metrics route.
 * Returns the registry (what a metrics port serves).
 */
export function registerMetrics(app: FastifyInstance, deps: MetricsDeps): Registry {
  const registry = newRegistry();
  const stopObserving = observeStoreQueries(registry, deps.store);
  app.addHook('onClose', async () => stopObserving());

  const requests = new Counter({
    name: `${METRIC_PREFIX}http_requests_total`,
    help: 'Requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${METRIC_PREFIX}http_request_duration_seconds`,
    help: 'Time from receiving a request to the end of its answer, by method, route pattern and status class (2xx, 3xx, 4xx, 5xx).',
    labelNames: ['method', 'route', 'status_class'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: `${METRIC_PREFIX}http_rate_limited_total`,
    help: 'Requests refused with 429 (rate limit), by route pattern.',
    labelNames: ['route'],
    registers: [registry],
  });
  const answerCache = new Counter({
    name: `${METRIC_PREFIX}answer_cache_requests_total`,
    help: 'Requests to routes whose answers are kept per snapshot: served from the cache (hit) or computed (miss).',
    labelNames: ['result'],
    registers: [registry],
  });
  // Present from the start, so a rate of either is defined before its first event.
  answerCache.inc({ result: 'hit' }, 0);
  answerCache.inc({ result: 'miss' }, 0);

  registerChainMetrics(registry, cachedReader(() => readMonitoringState(deps.store), CHAIN_STATE_TTL_MS), deps.storeDown);

  // On the root: every request, those of every plugin and those no route matched. By status, not by
  // who answered, so a refusal counts the same whichever limiter refused it.
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    if (route === METRICS_PATH) return;
    const method = METHODS.has(request.method) ? request.method : 'other';
    const status = reply.statusCode;
    requests.inc({ method, route, status: String(status) });
    duration.observe({ method, route, status_class: `${Math.floor(status / 100)}xx` }, reply.elapsedTime / 1000);
    if (status === 429) rateLimited.inc({ route });
    if (request.answerCache) answerCache.inc({ result: request.answerCache });
  });

  if (deps.route) {
    app.get(METRICS_PATH, { schema: { hide: true } }, async (_request, reply) => {
      const text = await (deps.text ?? (() => registry.metrics()))();
      return reply.header('content-type', registry.contentType).header('cache-control', 'no-store').send(text);
    });
  }
  return registry;
}
