/**
 * Compressed answers (docs/api-conventions.md, "Compression"): @fastify/compress for every answer
 * over the threshold, and the same choice of encoding and the same settings for the answers the
 * snapshot cache keeps (plugins/snapshot-cache.ts), which compresses each kept answer once per
 * encoding instead of at every request.
 *
 * The settings are the cheapest that keep most of the saving (bench/compression.ts measures them
 * on answers shaped like the API's): brotli at quality 1 and gzip and deflate at level 1 save
 * nearly the bytes of their default levels for a fraction of the CPU, and brotli 1 costs no more
 * than gzip 1 while it compresses large answers further, so it is preferred. Every answer is
 * compressed in one synchronous call: @fastify/compress otherwise streams answers over a size
 * (8 KiB on two cores) through libuv's thread pool, whose hand-offs cost more time than the
 * compression itself at the API's sizes.
 */
import compress from '@fastify/compress';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import zlib from 'node:zlib';

/**
 * Answers smaller than this go uncompressed: below it an answer and its headers fit in about one
 * packet either way, so compressing saves the client nothing.
 */
export const COMPRESSION_THRESHOLD = 1024;

/** Answers up to this size are compressed synchronously (all of the API's JSON answers; CSV exports are streams). */
const SYNC_COMPRESSION_LIMIT = 16 * 1024 * 1024;

/** In order of preference when the client accepts several equally. */
const ENCODINGS = ['br', 'gzip', 'deflate'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** Brotli's quality 11 (zlib's default) costs seconds on a large answer; @fastify/compress's 4 costs 2-4 times quality 1 for a few percent of bytes. */
const BROTLI_QUALITY = 1;
/** zlib's default 6 costs about twice level 1 for one or two percent of bytes. */
const ZLIB_LEVEL = 1;

export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    threshold: COMPRESSION_THRESHOLD,
    encodings: [...ENCODINGS],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
    zlibOptions: { level: ZLIB_LEVEL },
    syncThreshold: SYNC_COMPRESSION_LIMIT,
  });
}

/** The encoding the client accepts, as @fastify/compress negotiates it; undefined for none (identity). */
export function acceptedEncoding(request: FastifyRequest): Encoding | undefined {
  const header = request.headers['accept-encoding'];
  if (header === undefined) return undefined;
  // As @fastify/compress reads it: "*" and "x-gzip" stand for gzip.
  const chosen = negotiate(header.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), [...ENCODINGS, 'identity']);
  return ENCODINGS.find((encoding) => encoding === chosen);
}

export function compressBody(encoding: Encoding, body: string | Buffer): Buffer {
  switch (encoding) {
    case 'br':
      return zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body) } });
    case 'gzip':
      return zlib.gzipSync(body, { level: ZLIB_LEVEL });
    case 'deflate':
      return zlib.deflateSync(body, { level: ZLIB_LEVEL });
  }
}
