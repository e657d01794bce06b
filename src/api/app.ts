/**
 * Builds the HTTP application: shared plugins first (errors, compression, ETag, OpenAPI), then
 * the unauthenticated routes (health, docs), then `/api/v1` behind rate limiting and auth.
 * `server.ts` only listens; tests call `buildApp` and `inject`.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import etag from '@fastify/etag';
import type { Registry } from 'prom-client';
import type { Config } from '../config/env.ts';
import type { KeyVerifier } from '../auth/keys.ts';
import type { Store } from '../store/store.ts';
import { createCursorCodec } from './params/cursor.ts';
import { ProblemSchema } from './schemas/common.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { registerDeadline } from './plugins/deadline.ts';
import { clientErrorHandler, frameworkErrors, MAX_PARAM_LENGTH } from './plugins/framework-errors.ts';
import { registerStrictNumbers } from './plugins/strict-numbers.ts';
import { registerOpenApi } from './plugins/openapi.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerRateLimit } from './plugins/rate-limit.ts';
import { registerCaching } from './plugins/caching.ts';
import { registerCors } from './plugins/cors.ts';
import { registerCompression } from './plugins/compression.ts';
import { etagHash, registerSnapshotCache } from './plugins/snapshot-cache.ts';
import { createStoreOutage, registerOutageGuard } from './plugins/store-outage.ts';
import { registerLoadingGuard } from './plugins/chain-loading.ts';
import type { LoadingChains } from '../ingest/loading.ts';
import { registerCsv } from './plugins/csv.ts';
import { registerFreshness, sharedStoreStateReader } from './plugins/freshness.ts';
import { healthRoutes } from './routes/health.ts';
import { addressRoutes, powAddressRoutes } from './routes/addresses/index.ts';
import { blockRoutes, posBlockRoutes } from './routes/blocks/index.ts';
import { analyticsRoutes } from './analytics/index.ts';
import { registerDashboard } from './dashboard/index.ts';
import { eventRoutes } from './routes/events/index.ts';
import { transactionRoutes } from './routes/transactions/index.ts';
import { searchRoutes } from './routes/search/index.ts';
import { validatorRoutes } from './routes/validators/index.ts';
import { tokenRoutes } from './routes/tokens/index.ts';
import { DEFAULT_TUNING, type ApiContext, type ApiTuning } from './context.ts';
import { registerMetrics } from './metrics/api.ts';
import { sharedSchemaCompilers } from './schema-compilers.ts';

interface AppDeps {
  config: Config;
  store: Store;
  keys: KeyVerifier;
  /** A pino logger, or false for none (tests pass their own to capture output). */
  logger: FastifyBaseLogger | false;
  /** Plan thresholds; the defaults when omitted. */
  tuning?: ApiTuning;
  /** A key the dashboard page carries (`quarry demo` only: docs/dashboard.md). */
  dashboardKey?: string;
  /** Chains still loading into the store (`quarry demo`'s first start): their requests are answered 503. */
  loading?: LoadingChains;
  /** What /metrics answers instead of this app's own metrics (`quarry serve --workers N`: every worker's). */
  metricsText?: () => Promise<string>;
}

export type App = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

declare module 'fastify' {
  interface FastifyInstance {
    routeList: { method: string; url: string; hidden: boolean }[];
    /** The Prometheus registry (api/metrics/), unless metrics are off. */
    metrics: Registry | undefined;
  }
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    // The client address (`request.ip`, which rate limits count by) comes from X-Forwarded-For only
    // when the peer is a configured proxy; otherwise it is the peer (docs/rate-limits.md).
    trustProxy: deps.config.trustedProxies.length > 0 ? deps.config.trustedProxies : false,
    // Explorer paths are case-sensitive addresses; keep them as sent.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    ajv: { customOptions: { coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: true } },
    schemaController: { compilersFactory: sharedSchemaCompilers },
    bodyLimit: 16 * 1024,
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const storeOutage = createStoreOutage(deps.store, app.log);
  app.addHook('onClose', async () => storeOutage.close());
  releaseConnectionsOnClose(app);
  const ctx: ApiContext = {
    store: deps.store,
    storeOutage,
    config: deps.config,
    cursors: createCursorCodec(deps.config.cursorSecret),
    network: (chain) => deps.config.networks[chain],
    tuning: deps.tuning ?? DEFAULT_TUNING,
    loading: deps.loading,
  };

  // Every route, as registered: the OpenAPI test checks that each one is documented.
  const routeList: { method: string; url: string; hidden: boolean }[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method !== 'HEAD') routeList.push({ method, url: route.url, hidden: Boolean((route.schema as { hide?: boolean } | undefined)?.hide) });
    }
  });
  app.decorate('routeList', routeList);

  // First, so that its hooks see every request: /metrics here, or on a port of its own (server.ts).
  const metrics = deps.config.metrics.enabled
    ? registerMetrics(app, { store: deps.store, route: deps.config.metrics.port === undefined, storeDown: () => storeOutage.down, text: deps.metricsText })
    : undefined;
  app.decorate('metrics', metrics);

  app.addSchema(ProblemSchema);
  registerErrorHandling(app, storeOutage);
  registerStrictNumbers(app);
  registerDeadline(app, deps.config.statementTimeoutMs);
  await registerCors(app, deps.config.corsOrigins);
  // One read of the store's state serves the snapshot cache and the freshness headers of the requests of the next few ms.
  const readState = sharedStoreStateReader(deps.store, deps.config.freshnessMs);
  // Before compression and ETags: it keeps the JSON as serialized (plugins/snapshot-cache.ts).
  registerSnapshotCache(app, readState, deps.config.responseCacheBytes);
  await registerCompression(app);
  await app.register(etag, { hashFn: etagHash });
  await registerOpenApi(app);

  await app.register(healthRoutes(ctx));
  registerDashboard(app, { demoKey: deps.dashboardKey });
  await app.register(
    async (api) => {
      // Counted before the key is refused: plugins/auth.ts.
      registerAuth(api, deps.keys, await registerRateLimit(api, deps.config));
      registerOutageGuard(api, storeOutage);
      if (deps.loading) registerLoadingGuard(api, deps.loading);
      registerCaching(api);
      registerFreshness(api, readState);
      registerCsv(api);
      await api.register(addressRoutes(ctx), { prefix: '/:chain/addresses' });
      await api.register(powAddressRoutes(ctx), { prefix: '/pow/addresses' });
      await api.register(blockRoutes(ctx), { prefix: '/:chain/blocks' });
      await api.register(posBlockRoutes(ctx), { prefix: '/pos/blocks' });
      await api.register(transactionRoutes(ctx), { prefix: '/:chain/transactions' });
      await api.register(searchRoutes(ctx));
      await api.register(validatorRoutes(ctx), { prefix: '/pos/validators' });
      await api.register(tokenRoutes(ctx), { prefix: '/:chain/tokens' });
      await api.register(analyticsRoutes(ctx));
      await api.register(eventRoutes(ctx));
    },
    { prefix: '/api/v1' },
  );
  return app as unknown as App;
}

/**
 * How a closing app lets its connections go, so that app.close() waits only for the requests in
 * flight. Answers sent once closing end their connection: a keep-alive connection whose request was
 * in flight would otherwise hold the close until it idled out (72 s). Connections that have not
 * carried a request yet (a client's spare connection, opened ahead of need) are dropped: Node
 * counts them as busy until its headers timeout, a minute.
 */
function releaseConnectionsOnClose(app: FastifyInstance): void {
  let closing = false;
  const unused = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  app.server.on('request', (request: IncomingMessage) => unused.delete(request.socket));
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('preClose', async () => {
    closing = true;
    for (const socket of unused) socket.destroy();
  });
}
