/**
 * What `quarry index pos` and `quarry index pow` do around their indexer: open the store (migrated
 * when asked, always on the embedded one), turn the first SIGINT/SIGTERM into a stop that writes what
 * is fetched (a second one exits at once), show the progress bar on a terminal, and log the result.
 */
import type { Config } from '../config/env.ts';
import { StoppedError, type IndexerDeps } from '../ingest/indexer.ts';
import { createLogger } from '../log.ts';
import { migrate } from '../store/migrate.ts';
import { openStore } from '../store/open.ts';
import type { Store } from '../store/store.ts';
import { createProgress } from './progress.ts';

export interface RunIndexerOptions {
  chain: 'pos' | 'pow';
  config: Config;
  migrate: boolean;
  progress: boolean;
}

export async function runIndexer(
  options: RunIndexerOptions,
  index: (store: Store, deps: IndexerDeps) => Promise<object>,
): Promise<void> {
  const logger = createLogger(options.config.logLevel);
  const store = await openStore(options.config, 'indexer');
  try {
    if (store.kind === 'pglite' || options.migrate) await migrate(store);
    const controller = new AbortController();
    let signals = 0;
    const stop = () => {
      if (++signals > 1) process.exit(130);
      logger.info('stopping: writing what is fetched, then exiting (again to force)');
      controller.abort();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    try {
      const progress = options.progress && process.stderr.isTTY ? createProgress : undefined;
      const result = await index(store, { logger, signal: controller.signal, progress });
      logger.info({ ...result }, `${options.chain} indexing stopped`);
    } catch (error) {
      if (!(error instanceof StoppedError)) throw error;
      logger.info(error.message);
    }
  } finally {
    await store.close();
  }
}
