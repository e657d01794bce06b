import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from '../../config/env.ts';
import { createLogger } from '../../log.ts';
import { migrate, migrationStatus } from '../../store/migrate.ts';
import { openStore } from '../../store/open.ts';
import { isStandby } from '../../store/replication.ts';
import type { Store } from '../../store/store.ts';
import { closeOnSignal, startServer } from '../../api/server.ts';
import { OPENAPI_PATH } from '../../api/plugins/openapi.ts';
import { isWorker, runPrimary, workerId, workerMetrics } from '../cluster.ts';

const MAX_WORKERS = 256;

/**
 * How many API processes to run: `--workers`, else QUARRY_WORKERS, else one per core on PostgreSQL
 * and one on the embedded store, whose files one process holds (asking it for more is refused).
 */
export function resolveWorkers(flag: string | undefined, config: Config, cores = availableParallelism()): number {
  let workers = config.workers;
  if (flag !== undefined) {
    const value = /^\d+$/.test(flag) ? Number(flag) : NaN;
    if (!(value >= 1 && value <= MAX_WORKERS)) throw new ConfigError([`--workers: must be a whole number from 1 to ${MAX_WORKERS} (got ${JSON.stringify(flag)})`]);
    workers = value;
  }
  if (config.databaseUrl === undefined) {
    if (workers !== undefined && workers > 1) {
      throw new ConfigError([
        `--workers ${workers} needs PostgreSQL (QUARRY_DATABASE_URL): the embedded store is held by one process, so it is served by one`,
      ]);
    }
    return 1;
  }
  return workers ?? Math.min(cores, MAX_WORKERS);
}

/**
 * Makes sure the store has the schema this build expects. The embedded store is migrated; a
 * PostgreSQL primary is migrated with --migrate and otherwise checked; a standby (streaming
 * replica), which accepts no writes, is only checked: its schema comes from the primary's WAL.
 */
export async function checkSchema(store: Store, logger: Logger, wantsMigrate: boolean): Promise<void> {
  if (store.kind === 'pglite') {
    await migrate(store);
    return;
  }
  const standby = await isStandby(store);
  if (wantsMigrate && !standby) {
    await migrate(store);
    return;
  }
  if (wantsMigrate) logger.warn('the store is a standby, which cannot be migrated: checking its schema instead (migrate the primary)');
  const { pending } = await migrationStatus(store);
  if (pending.length === 0) return;
  throw new Error(
    standby
      ? `the standby's schema is ${pending.length} migration(s) behind this quarry: run \`quarry migrate\` against the primary, and serve once the standby has replayed it`
      : `${pending.length} migration(s) pending: run \`quarry migrate\` (or serve --migrate) first`,
  );
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the read API (PORT, HOST; embedded store unless QUARRY_DATABASE_URL is set, which may be a standby)')
    .option('--migrate', 'apply pending migrations first (always done on the embedded store; never on a standby)')
    .option('--workers <n>', 'API processes on the port (QUARRY_WORKERS; default one per core on PostgreSQL, 1 on the embedded store)')
    .action(async (options: { migrate?: boolean; workers?: string }) => {
      const config = loadConfig();
      const workers = resolveWorkers(options.workers, config);
      const base = createLogger(config.logLevel);
      const id = workerId();
      const logger = id === undefined ? (workers > 1 ? base.child({ worker: 'primary' }) : base) : base.child({ worker: id });

      if (workers > 1 && !isWorker()) {
        // The schema is checked (or migrated) once, here, so that a store that cannot be served
        // stops the command with its reason instead of workers dying and being restarted.
        const store = await openStore(config, 'admin');
        try {
          await checkSchema(store, logger, Boolean(options.migrate));
        } finally {
          await store.close();
        }
        if (config.redisUrl === undefined) {
          logger.warn(
            { workers },
            `QUARRY_REDIS_URL is unset: each of the ${workers} API processes counts rate limits on its own, so a client may make up to ${workers} times its limit (docs/deploy.md)`,
          );
        }
        if (config.apiKeys.length === 0) logger.warn('QUARRY_API_KEYS is empty: only keys issued with `quarry keys create` are accepted');
        const metricsPort = config.metrics.enabled && config.metrics.port !== undefined ? { host: config.host, port: config.metrics.port } : undefined;
        await runPrimary({ workers, logger, metricsPort });
        return;
      }

      const store = await openStore(config, 'api', { onSlowQuery: (label, ms) => logger.warn({ label, ms: Math.round(ms) }, 'slow query') });
      try {
        // A worker checks again (without migrating): one restarted later meets the schema as it is then.
        await checkSchema(store, logger, Boolean(options.migrate) && !isWorker());
      } catch (error) {
        await store.close();
        throw error;
      }
      const cluster = isWorker() && config.metrics.enabled ? workerMetrics() : undefined;
      const server = await startServer(config, store, logger, { clusterMetrics: cluster?.text });
      if (cluster && server.app.metrics) cluster.share(server.app.metrics);
      closeOnSignal(logger, { server, store });
      if (config.apiKeys.length === 0 && !isWorker()) {
        logger.warn('QUARRY_API_KEYS is empty: only keys issued with `quarry keys create` are accepted');
      }
      const metrics = server.metricsUrl ?? (server.app.metrics ? `${server.url}/metrics` : undefined);
      logger.info({ url: server.url, docs: `${server.url}/docs`, openapi: `${server.url}${OPENAPI_PATH}`, metrics, store: store.kind }, isWorker() ? 'API worker is serving' : 'quarry is serving');
    });
}
