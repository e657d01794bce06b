/**
 * The one place that reads the environment. Every setting is parsed and validated here; a bad
 * value stops start-up with a message naming the variable (all bad variables at once).
 */
import { isIP } from 'node:net';
import path from 'node:path';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  /** TCP port of the HTTP API. */
  port: number;
  /** Interface the HTTP API binds to. */
  host: string;
  /** PostgreSQL connection string; `undefined` selects the embedded PGlite store. */
  databaseUrl: string | undefined;
  /** Directory of the embedded store and other local state. */
  dataDir: string;
  /** API keys accepted as valid in addition to issued keys. Never logged. */
  apiKeys: string[];
  /** Network names echoed in responses, per chain. */
  networks: { pow: string; pos: string };
  logLevel: LogLevel;
  /** Requests per window by tier (docs/rate-limits.md): per issued key, per operator key, per client address without a valid key. */
  rateLimit: { max: number; windowMs: number; operatorMax: number; anonymousMax: number };
  /**
   * Proxies whose X-Forwarded-For is believed (addresses, CIDRs, or proxy-addr's `loopback`,
   * `linklocal`, `uniquelocal`); empty trusts none, so the client address is the connection's peer.
   */
  trustedProxies: string[];
  /** Redis that every API process shares rate-limit counts through; `undefined` counts in each process. */
  redisUrl: string | undefined;
  /**
   * API processes `quarry serve` runs on its port (src/cli/cluster.ts); `undefined` chooses: one per
   * core on PostgreSQL, one on the embedded store (which one process holds).
   */
  workers: number | undefined;
  /** Size of the node-postgres pool (server store only). */
  dbPoolSize: number;
  /** Upper bound on one API query, in milliseconds (the server's `statement_timeout`). */
  statementTimeoutMs: number;
  /**
   * Client-side limit on one API statement, in ms: a little above `statementTimeoutMs`, so a server
   * that answers cancels the statement first, and only a server or network that stopped answering
   * reaches it (the statement then fails as the store being unavailable).
   */
  queryTimeoutMs: number;
  /**
   * Client-side limit on one statement of the indexer and the other writing commands, in ms. They
   * run long bulk statements (a chain's rollup refresh, index builds) with no server-side limit, so
   * this is large: it only has to end a wait on a server that will never answer.
   */
  indexerQueryTimeoutMs: number;
  /** Longest wait for a new PostgreSQL connection, in milliseconds. */
  connectTimeoutMs: number;
  /** Bytes of analytics answers kept per database snapshot (src/api/plugins/snapshot-cache.ts); 0 keeps none. */
  responseCacheBytes: number;
  /**
   * How long one read of the store's state (its snapshot and the chains' tips) answers the requests
   * that arrive after it, in ms (src/api/plugins/freshness.ts): an answer holds every block committed
   * this long before its request. 0 reads it for every request.
   */
  freshnessMs: number;
  /** Origins browsers may call the API from: any (`*`), a list, or `off` (no CORS headers). */
  corsOrigins: '*' | 'off' | string[];
  /** Key of the cursor integrity check; cursors survive restarts and replicas that share it. */
  cursorSecret: string;
  /**
   * Prometheus metrics (docs/metrics-prometheus.md): served at /metrics unless `enabled` is false;
   * on the API's own port unless `port` is set, and then only there. An indexer serves its own
   * only when a port is set (`--metrics-port` wins).
   */
  metrics: { enabled: boolean; port: number | undefined };
  /** The live event stream, GET /api/v1/{chain}/events (docs/events.md). */
  events: {
    /** How often a process reads new events, per chain, while a stream of the chain is open (ms). */
    pollMs: number;
    /** Time between heartbeat comments on an open stream (ms). */
    heartbeatMs: number;
    /** Streams one API key may hold open at once, per process. */
    maxStreamsPerKey: number;
  };
  /** The pos nodes `quarry index pos` reads when its options do not name them. */
  posNode: { rpcUrl: string | undefined; rpcNamespace: 'qrl' | 'zond' | 'eth' | undefined; beaconUrl: string | undefined; beaconApi: 'qrl' | 'zond' | 'eth' | undefined; traces: boolean };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const DEFAULT_CURSOR_SECRET = 'quarry-cursor-v1';
const QUERY_TIMEOUT_MARGIN_MS = 5000;

/** Reads and validates the whole configuration from `env` (default: `process.env`). */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = <T>(name: string, fallback: T, parse: (raw: string) => T | string): T => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const parsed = parse(raw.trim());
    if (typeof parsed === 'string' && parsed.startsWith('!')) {
      problems.push(`${name}: ${parsed.slice(1)} (got ${JSON.stringify(redactIfSecret(name, raw))})`);
      return fallback;
    }
    return parsed as T;
  };

  const config: Config = {
    port: read('PORT', 8080, (raw) => integerIn(raw, 0, 65535)),
    host: read('HOST', '127.0.0.1', (raw) => (/^[A-Za-z0-9.:\-[\]]+$/.test(raw) ? raw : '!must be a host name or IP address')),
    databaseUrl: read<string | undefined>('QUARRY_DATABASE_URL', undefined, parseDatabaseUrl),
    dataDir: path.resolve(read('QUARRY_DATA_DIR', './.quarry', (raw) => raw)),
    apiKeys: read('QUARRY_API_KEYS', [] as string[], parseApiKeys) as string[],
    networks: {
      pow: read('QUARRY_POW_NETWORK', 'mainnet', networkName),
      pos: read('QUARRY_POS_NETWORK', 'testnet', networkName),
    },
    logLevel: read<LogLevel>('QUARRY_LOG_LEVEL', 'info', (raw) =>
      (LOG_LEVELS as readonly string[]).includes(raw) ? (raw as LogLevel) : `!must be one of ${LOG_LEVELS.join(', ')}`,
    ),
    rateLimit: {
      max: read('QUARRY_RATE_LIMIT_MAX', 600, (raw) => integerIn(raw, 1, 1_000_000_000)),
      windowMs: read('QUARRY_RATE_LIMIT_WINDOW', 60_000, parseDuration),
      operatorMax: 0,
      anonymousMax: 0,
    },
    trustedProxies: read('QUARRY_TRUSTED_PROXIES', [] as string[], parseProxies) as string[],
    redisUrl: read<string | undefined>('QUARRY_REDIS_URL', undefined, parseRedisUrl),
    workers: read<number | undefined>('QUARRY_WORKERS', undefined, (raw) => integerIn(raw, 1, 256)),
    dbPoolSize: read('QUARRY_DB_POOL_SIZE', 10, (raw) => integerIn(raw, 1, 1000)),
    statementTimeoutMs: read('QUARRY_STATEMENT_TIMEOUT_MS', 10_000, (raw) => integerIn(raw, 100, 3_600_000)),
    queryTimeoutMs: 0,
    indexerQueryTimeoutMs: read('QUARRY_INDEXER_QUERY_TIMEOUT_MS', 3_600_000, (raw) => integerIn(raw, 1000, 86_400_000)),
    connectTimeoutMs: read('QUARRY_DB_CONNECT_TIMEOUT_MS', 5000, (raw) => integerIn(raw, 100, 600_000)),
    responseCacheBytes: read('QUARRY_RESPONSE_CACHE_MB', 64, (raw) => integerIn(raw, 0, 65_536)) * 1024 * 1024,
    freshnessMs: read('QUARRY_FRESHNESS_MS', 10, (raw) => integerIn(raw, 0, 1000)),
    corsOrigins: read<Config['corsOrigins']>('QUARRY_CORS_ORIGINS', '*', parseOrigins),
    cursorSecret: read('QUARRY_CURSOR_SECRET', DEFAULT_CURSOR_SECRET, (raw) =>
      raw.length >= 8 ? raw : '!must be at least 8 characters',
    ),
    metrics: {
      enabled: read('QUARRY_METRICS', true, (raw) => (raw === 'on' ? true : raw === 'off' ? false : '!must be on or off')),
      port: read<number | undefined>('QUARRY_METRICS_PORT', undefined, (raw) => integerIn(raw, 0, 65535)),
    },
    events: {
      pollMs: read('QUARRY_EVENTS_POLL_INTERVAL', 500, parseDuration),
      heartbeatMs: read('QUARRY_EVENTS_HEARTBEAT', 15_000, parseDuration),
      maxStreamsPerKey: read('QUARRY_EVENTS_MAX_STREAMS', 5, (raw) => integerIn(raw, 1, 100_000)),
    },
    posNode: {
      rpcUrl: read<string | undefined>('QUARRY_POS_RPC_URL', undefined, httpUrl),
      rpcNamespace: read<'qrl' | 'zond' | 'eth' | undefined>('QUARRY_POS_RPC_NAMESPACE', undefined, (raw) =>
        raw === 'qrl' || raw === 'zond' || raw === 'eth' ? raw : '!must be one of qrl, zond, eth',
      ),
      beaconUrl: read<string | undefined>('QUARRY_POS_BEACON_URL', undefined, httpUrl),
      beaconApi: read<'qrl' | 'zond' | 'eth' | undefined>('QUARRY_POS_BEACON_API', undefined, (raw) =>
        raw === 'qrl' || raw === 'zond' || raw === 'eth' ? raw : '!must be one of qrl, zond, eth',
      ),
      // off: index without internal transfers on a node without a tracer (`quarry index pos --no-traces`).
      traces: read('QUARRY_POS_TRACES', true, (raw) => (raw === 'on' ? true : raw === 'off' ? false : '!must be on or off')),
    },
  };
  // Past the statement timeout: by default by a margin for the cancel's round trip.
  config.queryTimeoutMs = read('QUARRY_QUERY_TIMEOUT_MS', config.statementTimeoutMs + QUERY_TIMEOUT_MARGIN_MS, (raw) => {
    const value = integerIn(raw, 100, 3_700_000);
    if (typeof value === 'string') return value;
    return value > config.statementTimeoutMs ? value : `!must be more than QUARRY_STATEMENT_TIMEOUT_MS (${config.statementTimeoutMs})`;
  });
  // Operator keys default to the issued keys' limit; requests without a valid key to a tenth of it.
  config.rateLimit.operatorMax = read('QUARRY_RATE_LIMIT_OPERATOR_MAX', config.rateLimit.max, (raw) => integerIn(raw, 1, 1_000_000_000));
  config.rateLimit.anonymousMax = read('QUARRY_RATE_LIMIT_ANON_MAX', Math.ceil(config.rateLimit.max / 10), (raw) => integerIn(raw, 1, 1_000_000_000));
  if (config.metrics.port !== undefined && config.metrics.port !== 0 && config.metrics.port === config.port) {
    problems.push(`QUARRY_METRICS_PORT: must differ from PORT (${config.port}); leave it unset to serve /metrics on the API's port`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function redactIfSecret(name: string, raw: string): string {
  return /KEY|SECRET|_URL/.test(name) ? '<redacted>' : raw;
}

function integerIn(raw: string, min: number, max: number): number | string {
  if (!/^\d+$/.test(raw)) return `!must be a whole number from ${min} to ${max}`;
  const value = Number(raw);
  return value >= min && value <= max ? value : `!must be a whole number from ${min} to ${max}`;
}

function parseDatabaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '!must be a postgres:// or postgresql:// URL';
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return '!must be a postgres:// or postgresql:// URL';
  return raw;
}

function parseRedisUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol === 'redis:' || url.protocol === 'rediss:') return raw;
  } catch {
    // reported below
  }
  return '!must be a redis:// or rediss:// URL';
}

const PROXY_KEYWORDS = ['loopback', 'linklocal', 'uniquelocal'];

/** Comma-separated addresses and CIDRs (`10.0.0.0/8`, `fd00::/8`), or proxy-addr's named ranges. */
function parseProxies(raw: string): string[] | string {
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  for (const entry of entries) {
    if (PROXY_KEYWORDS.includes(entry)) continue;
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (family === 0 || rest.length > 0 || !bitsOk) {
      return `!must be comma-separated IP addresses or CIDRs (10.0.0.0/8, fd00::/8) or ${PROXY_KEYWORDS.join(', ')}: ${entry}`;
    }
  }
  return entries;
}

function httpUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return raw;
  } catch {
    // reported below
  }
  return '!must be an http:// or https:// URL';
}

function parseApiKeys(raw: string): string[] | string {
  const keys = raw.split(',').map((key) => key.trim()).filter((key) => key.length > 0);
  if (keys.some((key) => key.length < 16)) return '!each key must be at least 16 characters';
  if (keys.some((key) => !/^[\x21-\x7e]+$/.test(key))) return '!keys must be printable ASCII without spaces';
  return keys;
}

/** `*`, `off`, or comma-separated origins such as `https://explorer.example.org` (scheme, host, port; no path). */
function parseOrigins(raw: string): Config['corsOrigins'] | string {
  if (raw === '*' || raw === 'off') return raw;
  const origins = raw.split(',').map((origin) => origin.trim()).filter((origin) => origin.length > 0);
  for (const origin of origins) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      // reported below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
      return `!must be *, off, or comma-separated origins such as https://explorer.example.org (no path or trailing slash): ${origin}`;
    }
  }
  return origins.length > 0 ? origins : '!must name at least one origin';
}

function networkName(raw: string): string {
  return /^[a-z0-9][a-z0-9_-]{0,31}$/.test(raw) ? raw : '!must be 1-32 lowercase letters, digits, - or _';
}

/** `250ms`, `30s`, `1m`, `1h`, or plain milliseconds. */
function parseDuration(raw: string): number | string {
  const match = /^(\d+)(ms|s|m|h)?$/.exec(raw);
  if (!match) return '!must be a duration such as 500ms, 30s, 1m or 1h';
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h'];
  const value = Number(match[1]) * factor;
  return value > 0 && value <= 86_400_000 ? value : '!must be more than 0 and at most 24h';
}
