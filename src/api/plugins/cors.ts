/**
 * CORS, so explorer front ends can call the API from the browser. The key travels in the
 * Authorization header, never in a cookie, so answering any origin (the default) exposes nothing a
 * page could not already read with the key it holds; QUARRY_CORS_ORIGINS narrows it to a list, or
 * turns it off. Registered at the root, so errors (401, 429) carry the headers too and a browser can
 * read them.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config/env.ts';

/** Headers a browser script may read besides the safelisted ones. */
const EXPOSED = [
  'ETag', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy',
  // Freshness (plugins/freshness.ts) and CSV exports (plugins/csv.ts).
  'Quarry-Block-Height', 'Quarry-Block-Hash', 'Quarry-Pow-Block-Height', 'Quarry-Pow-Block-Hash', 'Quarry-Pos-Block-Height', 'Quarry-Pos-Block-Hash',
  'Link', 'Quarry-Next-Cursor', 'Content-Disposition',
];

export async function registerCors(app: FastifyInstance, origins: Config['corsOrigins']): Promise<void> {
  if (origins === 'off') return;
  await app.register(cors, {
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'HEAD'],
    allowedHeaders: ['Authorization', 'If-None-Match', 'Last-Event-ID'],
    exposedHeaders: EXPOSED,
    // Browsers cache a preflight this long (they cap it themselves: Chromium at 2 hours).
    maxAge: 86_400,
  });
}
