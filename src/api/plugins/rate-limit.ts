/**
 * Rate limits for /api/v1, applied before authentication (docs/rate-limits.md). The auth hook
 * (plugins/auth.ts) hashes the presented key, then calls the limiter this file builds, and only
 * then refuses a missing or bad key; so a flood of bad keys is counted, and refused with a 429,
 * before any 401 is written. A request with a valid key counts against that key, at its tier's
 * limit; any other request against its client address (`request.ip`: the peer, or what a trusted
 * proxy forwarded, app.ts), at the lower anonymous limit.
 *
 * Counts live in Redis when QUARRY_REDIS_URL is set, so every API process shares them (the
 * @fastify/rate-limit Redis store: one INCR with its expiry per request, in a Lua script), and in
 * process memory otherwise. While Redis cannot be reached each process counts in its own memory
 * and says so in the log once; shared counting resumes when Redis answers again. Refusing every
 * request while Redis is down would turn a cache outage into an API outage, and counting nothing
 * would leave the API open to the floods the limits exist for.
 */
import { createRequire } from 'node:module';
import rateLimit, { normalizeIP, type FastifyRateLimitStore } from '@fastify/rate-limit';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config/env.ts';
import { ApiError } from '../problem.ts';

/** Counts `request`, sets its RateLimit headers, and throws the 429 when it is over its limit. */
export type RequestLimiter = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

type Counted = { current: number; ttl: number };
type Callback = (error: Error | null, result?: Counted) => void;
interface CountStore {
  incr(key: string, callback: Callback, timeWindow: number, max: number): void;
  read(key: string, callback: Callback, timeWindow: number, max: number): void;
}

// The plugin's own stores (it does not export them by name).
const require = createRequire(import.meta.url);
const LocalStore = require('@fastify/rate-limit/store/LocalStore.js') as new (continueExceeding: boolean, exponentialBackoff: boolean, cache: number) => CountStore;
const RedisStore = require('@fastify/rate-limit/store/RedisStore.js') as new (
  continueExceeding: boolean,
  exponentialBackoff: boolean,
  redis: Redis,
  nameSpace: string,
) => CountStore;

/** Clients counted at once in memory (least recently seen forgotten first): a few MB. */
const MEMORY_CLIENTS = 100_000;
/** Where the counts live in Redis. */
const REDIS_NAMESPACE = 'quarry:rate-limit:';
/** Longest a request waits on Redis before it is counted in memory instead. */
const REDIS_COMMAND_TIMEOUT_MS = 500;
/** Longest start-up waits for Redis; past it the API starts counting in memory. */
const REDIS_STARTUP_WAIT_MS = 3000;

/** The limit that applies to `request`: its key's tier, or the anonymous one. */
export function limitOf(request: FastifyRequest, limits: Config['rateLimit']): number {
  if (request.apiKeyTier === 'operator') return limits.operatorMax;
  if (request.apiKeyTier === 'issued') return limits.max;
  return limits.anonymousMax;
}

/**
 * The bucket `request` counts in: its key's hash, or its client address (IPv6 by its /64, as one
 * host holds a /64; a peer already gone has no address and shares one bucket).
 */
const bucketOf = (request: FastifyRequest) =>
  request.apiKeyHash ? `key:${request.apiKeyHash}` : `ip:${normalizeIP((request.ip as string | undefined) ?? 'unknown')}`;

/**
 * Counts in Redis while it answers and in memory while it does not. Redis is asked only when its
 * connection is ready (no offline queue), so an outage costs a request no wait.
 */
function fallbackStore(redis: Redis, log: FastifyBaseLogger): { store: CountStore; down(error: Error | string): void; up(): void } {
  const shared = new RedisStore(false, false, redis, REDIS_NAMESPACE);
  const local = new LocalStore(false, false, MEMORY_CLIENTS);
  let reachable = true;
  const down = (error: Error | string) => {
    if (!reachable) return;
    reachable = false;
    log.warn({ reason: typeof error === 'string' ? error : error.message }, 'Redis unreachable: rate limits are counted in each API process until it answers again');
  };
  const up = () => {
    if (reachable) return;
    reachable = true;
    log.info('Redis reachable again: rate limits are shared by every API process');
  };
  const route = (method: 'incr' | 'read') => (key: string, callback: Callback, timeWindow: number, max: number) => {
    if (redis.status !== 'ready') {
      down(`connection ${redis.status}`);
      return local[method](key, callback, timeWindow, max);
    }
    shared[method](
      key,
      (error, result) => {
        if (!error) {
          up();
          return callback(null, result);
        }
        down(error);
        local[method](key, callback, timeWindow, max);
      },
      timeWindow,
      max,
    );
  };
  return { store: { incr: route('incr'), read: route('read') }, down, up };
}

async function connectRedis(url: string, log: FastifyBaseLogger): Promise<{ redis: Redis; store: CountStore }> {
  // Loaded only when counts are shared: a process without Redis never needs the client.
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    // A command while disconnected fails at once (and is counted in memory) instead of waiting.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_STARTUP_WAIT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  const counts = fallbackStore(redis, log);
  // The URL may hold a password: only the reason is logged.
  redis.on('error', (error: Error) => counts.down(error));
  redis.on('ready', counts.up);
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), REDIS_STARTUP_WAIT_MS);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!ready) counts.down('no connection at start-up');
  return { redis, store: counts.store };
}

/**
 * Registers @fastify/rate-limit on `app` (not on its routes: the auth hook calls the limiter) and
 * returns the limiter. Closes its Redis connection with the app.
 */
export async function registerRateLimit(app: FastifyInstance, config: Pick<Config, 'rateLimit' | 'redisUrl'>): Promise<RequestLimiter> {
  const limits = config.rateLimit;
  const windowSeconds = Math.max(1, Math.round(limits.windowMs / 1000));
  let store: CountStore;
  if (config.redisUrl) {
    const connected = await connectRedis(config.redisUrl, app.log);
    store = connected.store;
    app.addHook('onClose', async () => connected.redis.disconnect());
  } else {
    store = new LocalStore(false, false, MEMORY_CLIENTS);
  }
  await app.register(rateLimit, {
    global: false,
    max: (request) => limitOf(request, limits),
    timeWindow: limits.windowMs,
    // RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (seconds), and Retry-After on a 429.
    enableDraftSpec: true,
    keyGenerator: bucketOf,
    store: class {
      constructor() {
        return store as unknown as FastifyRateLimitStore;
      }
    } as unknown as new () => FastifyRateLimitStore,
    errorResponseBuilder: (request, context) => {
      const per = request.apiKeyHash ? 'for this API key' : 'for this client address without a valid API key';
      const error = new ApiError(429, `rate limit of ${context.max} requests per ${windowSeconds} s exceeded ${per}; retry in ${context.after}`);
      return Object.assign(error, { statusCode: 429 });
    },
  });
  const handler = app.rateLimit();
  return async (request, reply) => {
    reply.header('ratelimit-policy', `${limitOf(request, limits)};w=${windowSeconds}`);
    await handler.call(app, request, reply);
  };
}
