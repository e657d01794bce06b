/**
 * Cache-Control for successful API answers. Routes set `config.cacheSeconds` (default 5: new
 * blocks arrive every slot, from 3 s on a devnet to 60 s). Answers depend on the key being valid,
 * so shared caches must not keep them: `private`. ETags (and 304 on If-None-Match) come from
 * @fastify/etag.
 */
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    cacheSeconds?: number;
  }
}

const DEFAULT_CACHE_SECONDS = 5;

export function registerCaching(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode === 200 && !reply.hasHeader('cache-control')) {
      const seconds = request.routeOptions.config.cacheSeconds ?? DEFAULT_CACHE_SECONDS;
      reply.header('cache-control', `private, max-age=${seconds}`);
    }
    return payload;
  });
}
