/**
 * Rate limiting per API key (by its hash), with the IETF RateLimit-* headers on every answer and
 * Retry-After on a 429.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../problem.ts';

export async function registerRateLimit(app: FastifyInstance, limits: { max: number; windowMs: number }): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: limits.max,
    timeWindow: limits.windowMs,
    enableDraftSpec: true,
    keyGenerator: (request) => request.apiKeyHash ?? `ip:${request.ip}`,
    errorResponseBuilder: (_request, context) => {
      const error = new ApiError(429, `rate limit of ${context.max} requests per ${Math.round(limits.windowMs / 1000)} s exceeded; retry in ${context.after}`);
      return Object.assign(error, { statusCode: 429 });
    },
  });
}
