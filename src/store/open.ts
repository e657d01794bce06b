/** Opens the store the configuration names: PostgreSQL when a URL is set, PGlite otherwise. */
import path from 'node:path';
import type { Config } from '../config/env.ts';
import { createPgliteDriver } from './pglite.ts';
import { createPostgresDriver } from './postgres.ts';
import { createStore, type Store, type StoreOptions } from './store.ts';

export type StoreRole = 'api' | 'indexer' | 'admin';

export async function openStore(config: Config, role: StoreRole, options: StoreOptions = {}): Promise<Store> {
  if (config.databaseUrl) {
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
  return createStore(await createPgliteDriver(path.join(config.dataDir, 'pglite')), options);
}
