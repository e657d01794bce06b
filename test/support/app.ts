/** Builds the real application on a test store, with a captured log, for `app.inject` tests. */
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config/env.ts';
import { createKeyVerifier, type KeyVerifier } from '../../src/auth/keys.ts';
import { buildApp, type App } from '../../src/api/app.ts';
import type { ApiTuning } from '../../src/api/context.ts';
import { createLogger } from '../../src/log.ts';
import type { Store } from '../../src/store/store.ts';

export const TEST_KEY = 'test-key-0123456789abcdef';
export const AUTH = { authorization: `Bearer ${TEST_KEY}` };

export interface TestApp {
  app: App;
  keys: KeyVerifier;
  config: Config;
  /** Everything the app logged so far. */
  logs(): string;
  close(): Promise<void>;
}

export async function buildTestApp(store: Store, env: Record<string, string> = {}, options: { tuning?: ApiTuning } = {}): Promise<TestApp> {
  // A test stores a block and asks at once: the store's state is read for every request unless a test sets otherwise.
  const config = loadConfig({ QUARRY_API_KEYS: TEST_KEY, QUARRY_LOG_LEVEL: 'info', QUARRY_FRESHNESS_MS: '0', ...env });
  let captured = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      captured += chunk.toString();
      done();
    },
  });
  const keys = await createKeyVerifier(store, config.apiKeys, 50);
  const app = await buildApp({ config, store, keys, logger: createLogger(config.logLevel, sink), tuning: options.tuning });
  return {
    app,
    keys,
    config,
    logs: () => captured,
    close: async () => {
      keys.close();
      await app.close();
    },
  };
}
