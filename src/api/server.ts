/** Starts the API on the configured host and port, and stops it cleanly on a signal. */
import type { Logger } from 'pino';
import type { Config } from '../config/env.ts';
import { createKeyVerifier } from '../auth/keys.ts';
import type { Store } from '../store/store.ts';
import type { LoadingChains } from '../ingest/loading.ts';
import { buildApp, type App } from './app.ts';
import { serveMetrics } from './metrics/registry.ts';

interface RunningServer {
  app: App;
  url: string;
  /** Where /metrics is served when QUARRY_METRICS_PORT gives it a port of its own. */
  metricsUrl?: string;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** A key the dashboard page carries: `quarry demo` only, never `quarry serve` (docs/dashboard.md). */
  dashboardKey?: string;
  /** Chains whose history the process is still loading into the store (`quarry demo`): answered 503 until they are in. */
  loading?: LoadingChains;
  /**
   * A worker of `quarry serve --workers N` (src/cli/cluster.ts): /metrics answers this text (every
   * worker's), and no worker opens QUARRY_METRICS_PORT (the primary serves it).
   */
  clusterMetrics?: () => Promise<string>;
}

export async function startServer(config: Config, store: Store, logger: Logger, options: ServerOptions = {}): Promise<RunningServer> {
  const keys = await createKeyVerifier(store, config.apiKeys);
  const app = await buildApp({ config, store, keys, logger, dashboardKey: options.dashboardKey, loading: options.loading, metricsText: options.clusterMetrics });
  const address = await app.listen({ port: config.port, host: config.host });
  let metrics: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  if (app.metrics && config.metrics.port !== undefined && !options.clusterMetrics) {
    try {
      metrics = await serveMetrics(app.metrics, config.host, config.metrics.port);
    } catch (error) {
      keys.close();
      await app.close();
      throw error;
    }
  }
  return {
    app,
    url: address,
    metricsUrl: metrics?.url,
    // Waits for the requests in flight (app.ts, releaseConnectionsOnClose): they finish before the store may close.
    close: async () => {
      keys.close();
      await metrics?.close();
      await app.close();
    },
  };
}

interface ShutdownOptions {
  /** Where the signals come from (tests pass their own emitter). */
  signals?: Pick<NodeJS.Process, 'once'> | { once(event: string, listener: () => void): unknown };
  /** Called once everything is closed (tests pass their own). */
  exit?: (code: number) => void;
}

/**
 * Stops the API on SIGINT/SIGTERM, in order: the server first (no new connections; requests in
 * flight run to their answer, since `app.close()` waits for them), then the store they query.
 * Closing the store first failed the requests in flight ("Cannot use a pool after calling end").
 */
export function closeOnSignal(
  logger: Logger,
  parts: { server: { close(): Promise<void> }; store: { close(): Promise<void> } },
  options: ShutdownOptions = {},
): void {
  const signals = options.signals ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let closing = false;
  const stop = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing the requests in flight');
    let code = 0;
    for (const [name, part] of [['server', parts.server], ['store', parts.store]] as const) {
      try {
        await part.close();
      } catch (error) {
        code = 1;
        logger.error({ err: error, part: name }, 'error while shutting down');
      }
    }
    logger.info('shut down');
    exit(code);
  };
  signals.once('SIGINT', () => void stop('SIGINT'));
  signals.once('SIGTERM', () => void stop('SIGTERM'));
}
