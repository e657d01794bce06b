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
 * so it keeps the serialized JSON and its ETag; it also keeps each compressed form of it that a
 * client asked for (plugins/compression.ts), so a hit is not compressed again either.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../../store/store.ts';
import { acceptedEncoding, COMPRESSION_THRESHOLD, compressBody, type Encoding } from './compression.ts';
import { wantsCsv } from './csv.ts';
import { readStoreState } from './freshness.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The answer depends only on the URL and the stored data: kept per snapshot. */
    snapshotCache?: boolean;
  }
}

interface Kept {
  body: string;
  /** The body's length in UTF-8, as the compression threshold counts it. */
  bodyBytes: number;
  contentType: string;
  etag: string;
  /** The body compressed, per encoding a client accepted. */
  encoded: Map<Encoding, Buffer>;
}

/** What a kept answer holds, in bytes (the JSON counted by its length). */
const sizeOf = (kept: Kept) => kept.body.length + [...kept.encoded.values()].reduce((n, b) => n + b.length, 0);

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
    // A CSV export is a stream, computed per request: the kept answers are the JSON ones.
    if (request.method !== 'GET' || !request.routeOptions.config.snapshotCache || wantsCsv(request)) return;
    // The same read gives the chains' tips the answer's freshness headers name (plugins/freshness.ts).
    const now = (await readStoreState(store, request)).snapshot;
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
    return reply.header('content-type', hit.contentType).header('etag', hit.etag).send(bodyFor(request, reply, hit));
  });

  function evict(): void {
    for (const [url, old] of kept) {
      if (bytes <= maxBytes) break;
      kept.delete(url);
      bytes -= sizeOf(old);
    }
  }

  /**
   * The kept answer in the encoding the client accepts, compressed on first demand and kept with
   * it (the compression plugin passes a body that has its Content-Encoding through).
   */
  function bodyFor(request: FastifyRequest, reply: FastifyReply, entry: Kept): string | Buffer {
    const encoding = entry.bodyBytes >= COMPRESSION_THRESHOLD ? acceptedEncoding(request) : undefined;
    if (encoding === undefined) return entry.body;
    let encoded = entry.encoded.get(encoding);
    if (!encoded) {
      encoded = compressBody(encoding, entry.body);
      entry.encoded.set(encoding, encoded);
      bytes += encoded.length;
      evict();
    }
    const vary = reply.getHeader('vary');
    reply.header('vary', vary ? `${String(vary)}, accept-encoding` : 'accept-encoding').header('content-encoding', encoding);
    return encoded;
  }

  app.addHook('onSend', async (request, reply, payload) => {
    const miss = pending.get(request);
    if (!miss || reply.statusCode !== 200 || typeof payload !== 'string') return payload;
    const etag = etagOf(payload);
    reply.header('etag', etag);
    // An answer computed while the snapshot moved on is for no later request: not kept.
    if (miss.snapshot !== snapshot || payload.length > maxBytes) return payload;
    const replaced = kept.get(miss.url);
    if (replaced) bytes -= sizeOf(replaced);
    const entry: Kept = {
      body: payload,
      bodyBytes: Buffer.byteLength(payload),
      contentType: String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8'),
      etag,
      encoded: new Map(),
    };
    kept.set(miss.url, entry);
    bytes += payload.length;
    evict();
    return bodyFor(request, reply, entry);
  });
}
