/**
 * Bearer-key authentication for everything under /api/v1. A missing, malformed, unknown or
 * revoked key is a 401 with `WWW-Authenticate: Bearer`. The key itself never reaches a log: the
 * request carries only its hash (`request.apiKeyHash`) and tier, which rate limiting uses.
 *
 * One hook, in this order: the key is checked (one SHA-256 and an in-memory lookup, never the
 * database: src/auth/keys.ts), the request is counted by the rate limiter (by its key
 * when valid, else by its client address, plugins/rate-limit.ts), and only then is a request
 * without a valid key refused. So a flood of bad keys meets its limit and gets 429s, and what it
 * costs the server before that is a hash and a counter.
 */
import type { FastifyInstance } from 'fastify';
import type { KeyTier, KeyVerifier } from '../../auth/keys.ts';
import { problem } from '../problem.ts';
import { sendProblem } from './errors.ts';
import type { RequestLimiter } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    apiKeyHash?: string;
    /** The tier of the request's valid key (absent without one). */
    apiKeyTier?: KeyTier;
  }
}

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

export function registerAuth(app: FastifyInstance, keys: KeyVerifier, limit: RequestLimiter): void {
  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization;
    const match = header === undefined ? null : BEARER.exec(header);
    const verified = match ? keys.identify(match[1]!) : null;
    if (verified) {
      request.apiKeyHash = verified.hash;
      request.apiKeyTier = verified.tier;
    }
    // Throws the 429 when over the limit: before any 401.
    await limit(request, reply);
    if (verified) return;
    if (header === undefined) {
      return sendProblem(reply, problem(401, 'missing Authorization header; send Authorization: Bearer <API key>'), {
        'www-authenticate': 'Bearer realm="quarry"',
      });
    }
    if (!match) {
      return sendProblem(reply, problem(401, 'malformed Authorization header; expected Bearer <API key>'), {
        'www-authenticate': 'Bearer realm="quarry", error="invalid_request"',
      });
    }
    return sendProblem(reply, problem(401, 'unknown or revoked API key'), {
      'www-authenticate': 'Bearer realm="quarry", error="invalid_token"',
    });
  });
}
