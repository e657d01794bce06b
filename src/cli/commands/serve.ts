import type { Command } from 'commander';
import { loadConfig } from '../../config/env.ts';
import { createLogger } from '../../log.ts';
import { migrate, migrationStatus } from '../../store/migrate.ts';
import { openStore } from '../../store/open.ts';
import { closeOnSignal, startServer } from '../../api/server.ts';
import { OPENAPI_PATH } from '../../api/plugins/openapi.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('serve the read API (PORT, HOST; embedded store unless QUARRY_DATABASE_URL is set)')
    .option('--migrate', 'apply pending migrations first (always done on the embedded store)')
    .action(async (options: { migrate?: boolean }) => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      const store = await openStore(config, 'api', { onSlowQuery: (label, ms) => logger.warn({ label, ms: Math.round(ms) }, 'slow query') });
      if (store.kind === 'pglite' || options.migrate) {
        await migrate(store);
      } else {
        const { pending } = await migrationStatus(store);
        if (pending.length > 0) {
          await store.close();
          throw new Error(`${pending.length} migration(s) pending: run \`quarry migrate\` (or serve --migrate) first`);
        }
      }
      const server = await startServer(config, store, logger);
      closeOnSignal(logger, { server, store });
      if (config.apiKeys.length === 0) {
        logger.warn('QUARRY_API_KEYS is empty: only keys issued with `quarry keys create` are accepted');
      }
      const metrics = server.metricsUrl ?? (server.app.metrics ? `${server.url}/metrics` : undefined);
      logger.info({ url: server.url, docs: `${server.url}/docs`, openapi: `${server.url}${OPENAPI_PATH}`, metrics, store: store.kind }, 'quarry is serving');
    });
}
