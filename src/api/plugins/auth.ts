/**
 * Bearer-key authentication for everything under /api/v1. A missing, malformed, unknown or
 * revoked key is a 401 with `WWW-Authenticate: Bearer`. The key itself never reaches a log: the
 * request carries only its hash (`request.apiKeyHash`), which rate limiting uses as identity.
 */
import type { FastifyInstance } from 'fastify';
import type { KeyVerifier } from '../../auth/keys.ts';
import { problem } from '../problem.ts';
import { sendProblem } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    apiKeyHash?: string;
  }
}

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

export function registerAuth(app: FastifyInstance, keys: KeyVerifier): void {
  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization;
    const challenge = { 'www-authenticate': 'Bearer realm="quarry"' };
    if (header === undefined) {
      return sendProblem(reply, problem(401, 'missing Authorization header; send Authorization: Bearer <API key>'), challenge);
    }
    const match = BEARER.exec(header);
    if (!match) {
      return sendProblem(reply, problem(401, 'malformed Authorization header; expected Bearer <API key>'), {
        'www-authenticate': 'Bearer realm="quarry", error="invalid_request"',
      });
    }
    const hash = keys.verify(match[1]!);
    if (hash === null) {
      return sendProblem(reply, problem(401, 'unknown or revoked API key'), {
        'www-authenticate': 'Bearer realm="quarry", error="invalid_token"',
      });
    }
    request.apiKeyHash = hash;
  });
}
