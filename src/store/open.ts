/**
 * Opens the store the configuration names: PostgreSQL when a URL is set, PGlite otherwise. Each
 * driver is imported only when it is the one opened (a process never loads the other's library).
 */
import path from 'node:path';
import type { Config } from '../config/env.ts';
import { createStore, type Store, type StoreOptions } from './store.ts';

export type StoreRole = 'api' | 'indexer' | 'admin';

export async function openStore(config: Config, role: StoreRole, options: StoreOptions = {}): Promise<Store> {
  if (config.databaseUrl) {
    const { createPostgresDriver } = await import('./postgres.ts');
    const driver = createPostgresDriver(config.databaseUrl, {
      poolSize: role === 'api' ? config.dbPoolSize : 4,
      statementTimeoutMs: role === 'api' ? config.statementTimeoutMs : undefined,
      queryTimeoutMs: role === 'api' ? config.queryTimeoutMs : config.indexerQueryTimeoutMs,
      connectTimeoutMs: config.connectTimeoutMs,
      applicationName: `quarry-${role}`,
      prepare: role === 'api',
      parallel: role !== 'api',
    });
    return createStore(driver, options);
  }
  const { createPgliteDriver } = await import('./pglite.ts');
  return createStore(await createPgliteDriver(path.join(config.dataDir, 'pglite')), options);
}
