/**
 * Rate limits (docs/rate-limits.md): counted before authentication, so a flood of bad keys gets
 * 429s at the anonymous limit per client address; per key at the key's tier limit once the key is
 * valid; X-Forwarded-For believed only from a trusted proxy; and, with Redis, one count shared by
 * every API process, counted in memory while Redis is down. Rate limits do not depend on the
 * store, so these run on PGlite only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { issueKey } from '../../src/auth/keys.ts';
import type { Store } from '../../src/store/store.ts';
import { AUTH, buildTestApp, TEST_KEY, type TestApp } from '../support/app.ts';
import { redisUnavailable, startTestRedis, type TestRedis } from '../support/redis.ts';
import { openTestStore } from '../support/stores.ts';
import { waitFor } from '../support/wait-for.ts';

const URL = '/api/v1/pos/addresses/stats/summary';

type Answer = Awaited<ReturnType<TestApp['app']['inject']>>;

/** A 429 as the API contract has it: problem+json, Retry-After and the RateLimit headers. */
function assertLimited(res: Answer, limit: number, windowSeconds = 60): void {
  assert.equal(res.statusCode, 429, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.equal(body.status, 429);
  assert.equal(body.type, '/problems/rate-limited');
  assert.match(body.detail, new RegExp(`rate limit of ${limit} requests per ${windowSeconds} s exceeded`));
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= windowSeconds, `Retry-After ${res.headers['retry-after']}`);
  assert.equal(res.headers['ratelimit-limit'], String(limit));
  assert.equal(res.headers['ratelimit-remaining'], '0');
  assert.equal(res.headers['ratelimit-reset'], res.headers['retry-after']);
  assert.equal(res.headers['ratelimit-policy'], `${limit};w=${windowSeconds}`);
}

/** Statements the store ran so far. */
const statements = (store: Store) => [...store.stats().values()].reduce((n, s) => n + s.count, 0);

let store: Store;
before(async () => {
  store = await openTestStore('pglite');
});
after(() => store.close());

describe('rate limits', () => {
  it('limits a bad-key flood per client address, at its own lower limit, before answering 401', async () => {
    // The default limits: 600 per minute per key, 60 per minute per address without a valid key.
    const t = await buildTestApp(store);
    try {
      const before = statements(store);
      const statuses = new Map<number, number>();
      let firstLimited: Answer | undefined;
      for (let i = 0; i < 800; i++) {
        // Wrong keys, a malformed header and no header at all: all without a valid key.
        const headers = i % 50 === 7 ? { authorization: 'Basic abc' } : i % 50 === 9 ? {} : { authorization: `Bearer wrong-key-${i}-0123456789` };
        const res = await t.app.inject({ url: URL, headers, remoteAddress: '203.0.113.7' });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        if (res.statusCode === 401) {
          assert.equal(res.headers['ratelimit-limit'], '60');
          assert.equal(res.headers['ratelimit-remaining'], String(59 - i), 'each refused key counts');
        }
        if (res.statusCode === 429) {
          firstLimited ??= res;
          // The 401's work was not done: no challenge, no 401 body.
          assert.equal(res.headers['www-authenticate'], undefined);
        }
      }
      assert.deepEqual(Object.fromEntries(statuses), { 401: 60, 429: 740 });
      assertLimited(firstLimited!, 60);
      assert.equal(statements(store), before, 'the flood ran no query: keys are checked in memory');

      // A valid key from the same address has its own count, at its own limit.
      const valid = await t.app.inject({ url: URL, headers: AUTH, remoteAddress: '203.0.113.7' });
      assert.equal(valid.statusCode, 200);
      assert.equal(valid.headers['ratelimit-limit'], '600');
      assert.equal(valid.headers['ratelimit-remaining'], '599');
      // A path that matches no route is a 404, not counted (docs/rate-limits.md).
      assert.equal((await t.app.inject({ url: '/api/v1/no/such/route', headers: { authorization: 'Bearer wrong-key-0123456789' }, remoteAddress: '203.0.113.7' })).statusCode, 404);
      // Another address is not limited by the flood.
      const other = await t.app.inject({ url: URL, headers: { authorization: 'Bearer wrong-key-0123456789' }, remoteAddress: '203.0.113.8' });
      assert.equal(other.statusCode, 401);
      assert.equal(other.headers['ratelimit-remaining'], '59');
    } finally {
      await t.close();
    }
  });

  it('limits a valid key per key, at its tier limit: issued keys and operator keys', async () => {
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_MAX: '3', QUARRY_RATE_LIMIT_OPERATOR_MAX: '5', QUARRY_RATE_LIMIT_ANON_MAX: '2' });
    try {
      const [{ key: first }, { key: second }] = [await issueKey(store, 'first client'), await issueKey(store, 'second client')];
      await t.keys.refresh();
      const get = (key: string, remoteAddress = '198.51.100.20') => t.app.inject({ url: URL, headers: { authorization: `Bearer ${key}` }, remoteAddress });

      for (let i = 0; i < 3; i++) {
        // From different addresses: the key is what is counted.
        const res = await get(first, `198.51.100.${30 + i}`);
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['ratelimit-limit'], '3');
        assert.equal(res.headers['ratelimit-remaining'], String(2 - i));
        assert.equal(res.headers['ratelimit-policy'], '3;w=60');
      }
      assertLimited(await get(first, '198.51.100.40'), 3);
      // Another issued key keeps its own count.
      assert.equal((await get(second)).headers['ratelimit-remaining'], '2');

      // The operator's key (QUARRY_API_KEYS) has the operator tier's limit.
      for (let i = 0; i < 5; i++) {
        const res = await get(TEST_KEY);
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['ratelimit-limit'], '5');
        assert.equal(res.headers['ratelimit-remaining'], String(4 - i));
      }
      assertLimited(await get(TEST_KEY), 5);

      // Without a valid key: the anonymous limit, whatever the keys of this address did.
      assert.equal((await get('not-a-key-0123456789')).statusCode, 401);
      assert.equal((await get('not-a-key-0123456789')).statusCode, 401);
      assertLimited(await get('not-a-key-0123456789'), 2);
    } finally {
      await t.close();
    }
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_ANON_MAX: '2' });
    try {
      const get = (remoteAddress: string, forwarded: string) =>
        t.app.inject({ url: URL, headers: { 'x-forwarded-for': forwarded }, remoteAddress });
      assert.equal((await get('203.0.113.50', '198.51.100.1')).statusCode, 401);
      assert.equal((await get('203.0.113.50', '198.51.100.2')).statusCode, 401);
      // A new forwarded address each time does not give a new count: the peer is the client.
      assertLimited(await get('203.0.113.50', '198.51.100.3'), 2);
      assert.equal((await get('203.0.113.51', '198.51.100.3')).statusCode, 401);
      // IPv6 clients are counted by their /64, which one host holds.
      assert.equal((await get('2001:db8:1:2::1', '198.51.100.4')).statusCode, 401);
      assert.equal((await get('2001:db8:1:2::ffff', '198.51.100.4')).statusCode, 401);
      assertLimited(await get('2001:db8:1:2:aaaa::9', '198.51.100.4'), 2);
      assert.equal((await get('2001:db8:1:3::1', '198.51.100.4')).statusCode, 401);
    } finally {
      await t.close();
    }
  });

  it('honours X-Forwarded-For from a trusted proxy, as far back as the proxies are trusted', async () => {
    const t = await buildTestApp(store, { QUARRY_RATE_LIMIT_ANON_MAX: '2', QUARRY_TRUSTED_PROXIES: '10.0.0.0/8' });
    try {
      const get = (remoteAddress: string, forwarded: string) =>
        t.app.inject({ url: URL, headers: { 'x-forwarded-for': forwarded }, remoteAddress });
      // Through the proxy 10.0.0.5: each forwarded client has its own count.
      assert.equal((await get('10.0.0.5', '198.51.100.1')).statusCode, 401);
      assert.equal((await get('10.0.0.5', '198.51.100.1')).statusCode, 401);
      assertLimited(await get('10.0.0.5', '198.51.100.1'), 2);
      assert.equal((await get('10.0.0.5', '198.51.100.2')).statusCode, 401);
      // What the client itself put in front of its address (the proxy appends) is not believed;
      // a chain of trusted proxies is walked back to the first untrusted address.
      assertLimited(await get('10.0.0.5', '192.0.2.99, 198.51.100.1'), 2);
      assertLimited(await get('10.0.0.5', '198.51.100.1, 10.9.9.9'), 2);
      // A peer outside the trusted range is the client, whatever it forwards.
      assert.equal((await get('203.0.113.60', '198.51.100.2')).statusCode, 401);
      assert.equal((await get('203.0.113.60', '198.51.100.2')).statusCode, 401);
      assertLimited(await get('203.0.113.60', '198.51.100.9'), 2);
    } finally {
      await t.close();
    }
  });
});

describe('rate limits shared through Redis', () => {
  const unavailable = redisUnavailable();
  let redis: TestRedis | undefined;
  before(async () => {
    if (!unavailable) redis = await startTestRedis();
  });
  after(() => redis?.stop());

  it('counts once for every API process, and in memory while Redis is down', { skip: unavailable ?? false }, async () => {
    const env = { QUARRY_REDIS_URL: redis!.url, QUARRY_RATE_LIMIT_MAX: '4', QUARRY_RATE_LIMIT_ANON_MAX: '3' };
    // Two processes' worth: two apps, each with its own Redis connection.
    const [a, b] = [await buildTestApp(store, env), await buildTestApp(store, env)];
    const inspect = new Redis(redis!.url);
    inspect.on('error', () => {}); // while the server is stopped
    try {
      const { key } = await issueKey(store, 'shared client');
      await Promise.all([a.keys.refresh(), b.keys.refresh()]);
      const get = (t: TestApp, headers: Record<string, string>, remoteAddress = '198.51.100.70') => t.app.inject({ url: URL, headers, remoteAddress });
      const issued = { authorization: `Bearer ${key}` };

      for (const [i, t] of [a, b, a, b].entries()) {
        const res = await get(t, issued);
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['ratelimit-remaining'], String(3 - i), `request ${i + 1} counted once across both apps`);
      }
      assertLimited(await get(a, issued), 4);
      assertLimited(await get(b, issued), 4);

      // A bad-key flood spread over both processes meets one limit too.
      const bad = { authorization: 'Bearer wrong-key-0123456789' };
      assert.deepEqual([(await get(a, bad)).statusCode, (await get(b, bad)).statusCode, (await get(a, bad)).statusCode], [401, 401, 401]);
      assertLimited(await get(b, bad), 3);

      // The counts are in Redis, under hashes: no key in the clear.
      const stored = await inspect.keys('quarry:rate-limit:*');
      assert.equal(stored.length, 2, stored.join(', '));
      assert.ok(stored.some((k) => k.endsWith(':ip:198.51.100.70')));
      assert.ok(stored.every((k) => !k.includes(key) && !k.includes(TEST_KEY)));
      assert.equal(await inspect.get(stored.find((k) => k.includes(':key:'))!), '6');

      // Redis goes down: each process counts in its own memory, and says so once.
      await redis!.stopServer();
      await waitFor(async () => a.logs().includes('Redis unreachable') && b.logs().includes('Redis unreachable'), 'both apps to see Redis go', 10_000);
      for (let i = 0; i < 4; i++) {
        const res = await get(a, issued);
        assert.equal(res.statusCode, 200, 'answered while Redis is down, counted in memory');
        assert.equal(res.headers['ratelimit-remaining'], String(3 - i));
      }
      assertLimited(await get(a, issued), 4);
      assert.equal((await get(b, issued)).headers['ratelimit-remaining'], '3', "the other process's own count");
      assert.equal(a.logs().split('Redis unreachable').length - 1, 1, 'one warning per outage');

      // Back: counts are shared again.
      await redis!.startServer();
      await waitFor(async () => a.logs().includes('Redis reachable again') && b.logs().includes('Redis reachable again'), 'both apps to reconnect', 15_000);
      const again = [await get(a, issued), await get(b, issued)];
      assert.deepEqual(again.map((r) => [r.statusCode, r.headers['ratelimit-remaining']]), [[200, '3'], [200, '2']]);
    } finally {
      inspect.disconnect();
      await a.close();
      await b.close();
    }
  });
});
