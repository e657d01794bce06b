import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './env.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
  assert.fail('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, undefined);
    assert.equal(config.dataDir, path.resolve('./.quarry'));
    assert.deepEqual(config.apiKeys, []);
    assert.deepEqual(config.networks, { pow: 'mainnet', pos: 'testnet' });
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.rateLimit, { max: 600, windowMs: 60_000, operatorMax: 600, anonymousMax: 60 });
    assert.deepEqual(config.trustedProxies, []);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.corsOrigins, '*');
    assert.deepEqual(config.events, { pollMs: 500, heartbeatMs: 15_000, maxStreamsPerKey: 5 });
    assert.equal(config.freshnessMs, 10);
  });

  it('reads QUARRY_FRESHNESS_MS from 0 to 1000 and refuses anything else, naming it', () => {
    assert.equal(loadConfig({ QUARRY_FRESHNESS_MS: '0' }).freshnessMs, 0);
    assert.equal(loadConfig({ QUARRY_FRESHNESS_MS: '1000' }).freshnessMs, 1000);
    for (const bad of ['-1', '1001', '2.5', 'soon']) assert.throws(() => loadConfig({ QUARRY_FRESHNESS_MS: bad }), /QUARRY_FRESHNESS_MS/);
  });

  it('derives the operator and anonymous limits from QUARRY_RATE_LIMIT_MAX unless set', () => {
    assert.deepEqual(loadConfig({ QUARRY_RATE_LIMIT_MAX: '95' }).rateLimit, { max: 95, windowMs: 60_000, operatorMax: 95, anonymousMax: 10 });
    assert.deepEqual(loadConfig({ QUARRY_RATE_LIMIT_MAX: '3' }).rateLimit.anonymousMax, 1);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      QUARRY_DATABASE_URL: 'postgres://u:p@db:5432/quarry',
      QUARRY_DATA_DIR: '/var/lib/quarry',
      QUARRY_API_KEYS: ' key-aaaaaaaaaaaaaaaa , key-bbbbbbbbbbbbbbbb ,',
      QUARRY_POW_NETWORK: 'testnet',
      QUARRY_POS_NETWORK: 'mainnet',
      QUARRY_LOG_LEVEL: 'warn',
      QUARRY_RATE_LIMIT_MAX: '100',
      QUARRY_RATE_LIMIT_WINDOW: '30s',
      QUARRY_RATE_LIMIT_OPERATOR_MAX: '5000',
      QUARRY_RATE_LIMIT_ANON_MAX: '7',
      QUARRY_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.4 ,fd00::/8,loopback',
      QUARRY_REDIS_URL: 'redis://:secret@cache:6379/2',
      QUARRY_CORS_ORIGINS: 'https://explorer.example.org, http://localhost:5173',
      QUARRY_EVENTS_POLL_INTERVAL: '250ms',
      QUARRY_EVENTS_HEARTBEAT: '30s',
      QUARRY_EVENTS_MAX_STREAMS: '20',
    });
    assert.equal(config.port, 9000);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/quarry');
    assert.equal(config.dataDir, '/var/lib/quarry');
    assert.deepEqual(config.apiKeys, ['key-aaaaaaaaaaaaaaaa', 'key-bbbbbbbbbbbbbbbb']);
    assert.deepEqual(config.networks, { pow: 'testnet', pos: 'mainnet' });
    assert.equal(config.logLevel, 'warn');
    assert.deepEqual(config.rateLimit, { max: 100, windowMs: 30_000, operatorMax: 5000, anonymousMax: 7 });
    assert.deepEqual(config.trustedProxies, ['10.0.0.0/8', '192.168.1.4', 'fd00::/8', 'loopback']);
    assert.equal(config.redisUrl, 'redis://:secret@cache:6379/2');
    assert.deepEqual(config.corsOrigins, ['https://explorer.example.org', 'http://localhost:5173']);
    assert.equal(loadConfig({ QUARRY_CORS_ORIGINS: 'off' }).corsOrigins, 'off');
    assert.deepEqual(config.events, { pollMs: 250, heartbeatMs: 30_000, maxStreamsPerKey: 20 });
  });

  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['HOST', 'bad host!'],
    ['QUARRY_DATABASE_URL', 'mysql://x'],
    ['QUARRY_DATABASE_URL', 'not a url'],
    ['QUARRY_API_KEYS', 'short'],
    ['QUARRY_POW_NETWORK', 'Main Net'],
    ['QUARRY_LOG_LEVEL', 'loud'],
    ['QUARRY_RATE_LIMIT_MAX', '0'],
    ['QUARRY_RATE_LIMIT_WINDOW', 'soon'],
    ['QUARRY_RATE_LIMIT_OPERATOR_MAX', '-5'],
    ['QUARRY_RATE_LIMIT_ANON_MAX', '0'],
    ['QUARRY_TRUSTED_PROXIES', 'proxy.example.org'],
    ['QUARRY_TRUSTED_PROXIES', '10.0.0.0/33'],
    ['QUARRY_TRUSTED_PROXIES', '10.0.0.1, *'],
    ['QUARRY_REDIS_URL', 'http://cache:6379'],
    ['QUARRY_DB_POOL_SIZE', '1.5'],
    ['QUARRY_CURSOR_SECRET', 'short'],
    ['QUARRY_POS_RPC_URL', 'ws://node:8546'],
    ['QUARRY_POS_RPC_NAMESPACE', 'web3'],
    ['QUARRY_POS_BEACON_URL', 'not a url'],
    ['QUARRY_POS_TRACES', 'no'],
    ['QUARRY_POS_BEACON_API', 'v1'],
    ['QUARRY_CORS_ORIGINS', 'explorer.example.org'],
    ['QUARRY_CORS_ORIGINS', 'https://explorer.example.org/'],
    ['QUARRY_CORS_ORIGINS', 'https://explorer.example.org/app'],
    ['QUARRY_CORS_ORIGINS', 'ftp://files.example.org'],
    ['QUARRY_CORS_ORIGINS', ' , '],
    ['QUARRY_QUERY_TIMEOUT_MS', '10000'],
    ['QUARRY_INDEXER_QUERY_TIMEOUT_MS', 'never'],
    ['QUARRY_DB_CONNECT_TIMEOUT_MS', '0'],
    ['QUARRY_METRICS', 'yes'],
    ['QUARRY_METRICS_PORT', '70000'],
    ['QUARRY_METRICS_PORT', '8080'],
    ['QUARRY_EVENTS_POLL_INTERVAL', 'often'],
    ['QUARRY_EVENTS_HEARTBEAT', '0s'],
    ['QUARRY_EVENTS_MAX_STREAMS', '0'],
  ] as const) {
    it(`names ${name} when it is ${JSON.stringify(value)}`, () => {
      const problems = problemsOf({ [name]: value });
      assert.equal(problems.length, 1);
      assert.match(problems[0]!, new RegExp(`^${name}: `));
    });
  }

  it('sets the client-side query timeout a little above the statement timeout', () => {
    const defaults = loadConfig({});
    assert.deepEqual([defaults.statementTimeoutMs, defaults.queryTimeoutMs, defaults.indexerQueryTimeoutMs, defaults.connectTimeoutMs], [10_000, 15_000, 3_600_000, 5000]);
    assert.equal(loadConfig({ QUARRY_STATEMENT_TIMEOUT_MS: '2000' }).queryTimeoutMs, 7000);
    assert.equal(loadConfig({ QUARRY_STATEMENT_TIMEOUT_MS: '2000', QUARRY_QUERY_TIMEOUT_MS: '2500' }).queryTimeoutMs, 2500);
    assert.match(problemsOf({ QUARRY_STATEMENT_TIMEOUT_MS: '2000', QUARRY_QUERY_TIMEOUT_MS: '2000' })[0]!, /must be more than QUARRY_STATEMENT_TIMEOUT_MS \(2000\)/);
  });

  it('serves metrics on the API port by default, elsewhere or not at all when told', () => {
    assert.deepEqual(loadConfig({}).metrics, { enabled: true, port: undefined });
    assert.deepEqual(loadConfig({ QUARRY_METRICS: 'off' }).metrics, { enabled: false, port: undefined });
    assert.deepEqual(loadConfig({ QUARRY_METRICS: 'on', QUARRY_METRICS_PORT: '9464' }).metrics, { enabled: true, port: 9464 });
    assert.match(problemsOf({ PORT: '9000', QUARRY_METRICS_PORT: '9000' })[0]!, /^QUARRY_METRICS_PORT: must differ from PORT \(9000\)/);
  });

  it('reports every bad variable at once, without echoing secrets', () => {
    const problems = problemsOf({ PORT: 'x', QUARRY_API_KEYS: 'tiny-secret', QUARRY_DATABASE_URL: 'ftp://user:hunter2@host', QUARRY_REDIS_URL: 'ftp://:hunter3@cache' });
    assert.equal(problems.length, 4);
    assert.ok(problems.every((p) => !p.includes('tiny-secret') && !p.includes('hunter2') && !p.includes('hunter3')));
  });
});
