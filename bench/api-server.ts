/**
 * The API process the benchmark measures: what `quarry serve` runs, plus `/api/v1/_bench/static/:bytes`,
 * a precomputed JSON body behind the same plugins, so that the same server measures the HTTP stack's
 * ceiling in the same run. Started as `node --import tsx bench/api-server.ts` (environment as for `quarry serve`).
 */
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config/env.ts';
import { createLogger } from '../src/log.ts';
import { migrationStatus } from '../src/store/migrate.ts';
import { openStore } from '../src/store/open.ts';
import { createKeyVerifier } from '../src/auth/keys.ts';
import { buildApp } from '../src/api/app.ts';
import { registerAuth } from '../src/api/plugins/auth.ts';
import { registerRateLimit } from '../src/api/plugins/rate-limit.ts';
import { registerCaching } from '../src/api/plugins/caching.ts';
import { STATIC_PREFIX } from './load.ts';

const config = loadConfig();
const logger = createLogger(config.logLevel);
const store = await openStore(config, 'api');
const { pending } = await migrationStatus(store);
if (pending.length > 0) throw new Error(`${pending.length} migration(s) pending on the benchmark database`);
const keys = await createKeyVerifier(store, config.apiKeys);
const app = await buildApp({ config, store, keys, logger });

const bodies = new Map<number, string>();
await app.register(
  async (api: FastifyInstance) => {
    registerAuth(api, keys, await registerRateLimit(api, config));
    registerCaching(api);
    api.get<{ Params: { bytes: string } }>('/:bytes', { schema: { hide: true } }, async (request, reply) => {
      const bytes = Math.min(Math.max(Number(request.params.bytes) || 2, 2), 1 << 22);
      let body = bodies.get(bytes);
      if (body === undefined) {
        body = jsonOfSize(bytes);
        bodies.set(bytes, body);
      }
      return reply.type('application/json; charset=utf-8').send(body);
    });
  },
  { prefix: STATIC_PREFIX },
);

const url = await app.listen({ port: config.port, host: config.host });
console.log(JSON.stringify({ listening: url, pid: process.pid }));

const stop = async () => {
  keys.close();
  await app.close();
  await store.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());

/** A JSON document of exactly `bytes` bytes: a list of items, padded in the last one. */
function jsonOfSize(bytes: number): string {
  if (bytes < 21) return ' '.repeat(bytes - 2) + '{}';
  const item = '{"address":"Q0000000000000000000000000000000000000000","tx_count":12345,"balance":"1000000000"}';
  const items: string[] = [];
  let size = '{"items":[],"pad":""}'.length;
  while (size + item.length + 1 < bytes - 1) {
    items.push(item);
    size += item.length + (items.length > 1 ? 1 : 0);
  }
  const head = `{"items":[${items.join(',')}],"pad":"`;
  return head + 'x'.repeat(Math.max(0, bytes - head.length - 2)) + '"}';
}
