/**
 * Answers kept per database snapshot (docs/api-conventions.md, "Caching and limits"). An analytics
 * answer is a function of its URL and of the data its queries see, and what queries see changes
 * only when a write commits, which changes the snapshot PostgreSQL reports (pg_current_snapshot():
 * the next transaction id and those still in progress). So a request whose URL was answered under
 * the snapshot of now gets the same bytes again after one small query, and the next block's commit
 * makes every kept answer unreachable: answers stay exact and current to the latest block, and a
 * ten-year chart costs its computation once per block instead of once per request.
 *
 * Routes opt in with `config.snapshotCache` (the analytics group sets it for its routes); those
 * that read the clock (health's lag, `generated_at`) leave it off. A request with
 * `Cache-Control: no-cache` is computed anew (and kept). Registered before compression and ETags,
 * so it keeps the serialized JSON and its ETag, and a hit is compressed like any answer.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import sql from 'sql-template-tag';
import type { Store } from '../../store/store.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The answer depends only on the URL and the stored data: kept per snapshot. */
    snapshotCache?: boolean;
  }
}

interface Kept {
  body: string;
  contentType: string;
  etag: string;
}

/**
 * The hash of every ETag the API sends: @fastify/etag is registered with it (app.ts), and a kept
 * answer carries the ETag made from it, so a hit is not hashed again and matches a miss's.
 */
export const etagHash = (body: string | Buffer) => createHash('sha1').update(body).digest('base64');
const etagOf = (body: string) => `"${etagHash(body)}"`;

export function registerSnapshotCache(app: FastifyInstance, store: Store, maxBytes: number): void {
  if (maxBytes <= 0) return;
  // Most recently used last; all of one snapshot (the map is emptied when the snapshot moves on).
  const kept = new Map<string, Kept>();
  let snapshot = '';
  let bytes = 0;
  const pending = new WeakMap<FastifyRequest, { snapshot: string; url: string }>();

  // After authentication and validation (preHandler): a bad request is refused as always.
  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'GET' || !request.routeOptions.config.snapshotCache) return;
    const [row] = await store.query<{ s: string }>('api.snapshot', sql`SELECT pg_current_snapshot()::text AS s`);
    const now = row!.s;
    if (now !== snapshot) {
      kept.clear();
      bytes = 0;
      snapshot = now;
    }
    // `Cache-Control: no-cache` asks for the answer computed anew (HTTP's meaning; the benchmark's computed path).
    const hit = /no-cache/i.test(request.headers['cache-control'] ?? '') ? undefined : kept.get(request.url);
    if (!hit) {
      pending.set(request, { snapshot: now, url: request.url });
      return;
    }
    kept.delete(request.url);
    kept.set(request.url, hit);
    return reply.header('content-type', hit.contentType).header('etag', hit.etag).send(hit.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const miss = pending.get(request);
    if (!miss || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const etag = etagOf(payload);
    reply.header('etag', etag);
    // An answer computed while the snapshot moved on is for no later request: not kept.
    if (miss.snapshot !== snapshot || payload.length > maxBytes) return payload;
    bytes -= kept.get(miss.url)?.body.length ?? 0;
    kept.set(miss.url, { body: payload, contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'), etag });
    bytes += payload.length;
    for (const [url, old] of kept) {
      if (bytes <= maxBytes) break;
      kept.delete(url);
      bytes -= old.body.length;
    }
    return payload;
  });
}
