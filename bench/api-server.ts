/**
 * The API process the benchmark measures: what `quarry serve` runs, plus `/api/v1/_bench/static/:bytes`,
 * a precomputed JSON body behind the same plugins, so that the same server measures the HTTP stack's
 * ceiling in the same run. Started as bin/quarry.js starts `quarry serve`: compiled (bin/compiled-sources.js),
 * `node <bin/quarry.js's flags> --enable-source-maps <tree>/bench/api-server.js` (environment as for `quarry serve`).
 *
 * With BENCH_API_WORKERS=N above 1 it runs as `quarry serve --workers N` does: a node:cluster primary
 * forks N workers (with the node flags of serve's workers, src/cli/worker-flags.ts), each serving the whole app and the static route on the
 * one port, and prints `{"workers":[pids]}` once every worker listens; SIGTERM stops the workers, then
 * the primary.
 */
import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import { apiWorkerExecArgv } from '../src/cli/worker-flags.ts';

const workers = Math.max(1, Number(process.env.BENCH_API_WORKERS ?? 1) || 1);
if (workers > 1 && cluster.isPrimary) {
  await runPrimary(workers);
} else {
  await runApp();
}

async function runPrimary(count: number): Promise<void> {
  const listening = new Set<number>();
  let stopping = false;
  cluster.setupPrimary({ execArgv: apiWorkerExecArgv() });
  for (let i = 0; i < count; i++) {
    const worker = cluster.fork();
    worker.on('listening', () => {
      listening.add(worker.process.pid!);
      if (listening.size === count) console.log(JSON.stringify({ workers: [...listening], pid: process.pid }));
    });
  }
  cluster.on('exit', (worker, code) => {
    if (!stopping) {
      console.error(`worker ${worker.process.pid} exited with ${code}`);
      process.exit(1);
    }
  });
  const stop = async () => {
    stopping = true;
    const all = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    await Promise.all(all.map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : (w.once('exit', () => resolve()), w.process.kill('SIGTERM'))))));
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
}

/** The app and the static route. Its modules are loaded here, so that a primary, which only forks, does not hold them. */
async function runApp(): Promise<void> {
  const { loadConfig } = await import('../src/config/env.ts');
  const { createLogger } = await import('../src/log.ts');
  const { migrationStatus } = await import('../src/store/migrate.ts');
  const { openStore } = await import('../src/store/open.ts');
  const { createKeyVerifier } = await import('../src/auth/keys.ts');
  const { buildApp } = await import('../src/api/app.ts');
  const { registerAuth } = await import('../src/api/plugins/auth.ts');
  const { registerRateLimit } = await import('../src/api/plugins/rate-limit.ts');
  const { registerCaching } = await import('../src/api/plugins/caching.ts');
  const { STATIC_PREFIX } = await import('./load.ts');
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
}

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
