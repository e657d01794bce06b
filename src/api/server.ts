/** Starts the API on the configured host and port, and stops it cleanly on a signal. */
import type { Logger } from 'pino';
import type { Config } from '../config/env.ts';
import { createKeyVerifier } from '../auth/keys.ts';
import type { Store } from '../store/store.ts';
import { buildApp, type App } from './app.ts';

export interface RunningServer {
  app: App;
  url: string;
  close(): Promise<void>;
}

export async function startServer(config: Config, store: Store, logger: Logger): Promise<RunningServer> {
  const keys = await createKeyVerifier(store, config.apiKeys);
  const app = await buildApp({ config, store, keys, logger });
  const address = await app.listen({ port: config.port, host: config.host });
  return {
    app,
    url: address,
    close: async () => {
      keys.close();
      await app.close();
    },
  };
}

/** Closes `resources` once on SIGINT/SIGTERM, then exits. */
export function closeOnSignal(logger: Logger, ...resources: { close(): Promise<void> }[]): void {
  let closing = false;
  const stop = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    for (const resource of resources) {
      try {
        await resource.close();
      } catch (error) {
        logger.error({ err: error }, 'error while shutting down');
      }
    }
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}
