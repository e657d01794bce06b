/**
 * Compressed answers (docs/api-conventions.md): @fastify/compress for every answer over the
 * threshold, and the same choice of encoding and the same settings for the answers the snapshot
 * cache keeps (plugins/snapshot-cache.ts), which compresses each kept answer once per encoding
 * instead of at every request: for a ten-year chart, compressing costs far more than sending
 * (docs/api-conventions.md).
 */
import compress from '@fastify/compress';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import zlib from 'node:zlib';

/** Answers smaller than this go uncompressed. */
export const COMPRESSION_THRESHOLD = 1024;

/** In order of preference when the client accepts several equally. */
const ENCODINGS = ['br', 'gzip', 'deflate'] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** Brotli's quality 11 (zlib's default) costs seconds on a large answer; 4 is @fastify/compress's choice. */
const BROTLI_QUALITY = 4;

export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    threshold: COMPRESSION_THRESHOLD,
    encodings: [...ENCODINGS],
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
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

export function compressBody(encoding: Encoding, body: string): Buffer {
  switch (encoding) {
    case 'br':
      return zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body) } });
    case 'gzip':
      return zlib.gzipSync(body);
    case 'deflate':
      return zlib.deflateSync(body);
  }
}
