import assert from 'node:assert/strict';
import { connect, type AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore } from '../../src/store/store.ts';
import { describeEachStore, describeOnOneStore, openTestStore } from '../support/stores.ts';
import { Type } from 'typebox';
import { AddressPathParams, BooleanQuery, IntegerQuery, isTrue, StringEnum, WindowQuery } from '../../src/api/schemas/common.ts';
import { addressParam } from '../../src/api/params/address.ts';
import { parseWindow } from '../../src/api/params/window.ts';
import { AUTH, buildTestApp, type TestApp } from '../support/app.ts';

function assertProblem(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number) {
  assert.equal(res.statusCode, status);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.equal(body.status, status);
  assert.equal(typeof body.type, 'string');
  assert.equal(typeof body.title, 'string');
  assert.equal(typeof body.detail, 'string');
  return body;
}

describeOnOneStore('error responses', (getStore) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(getStore(), { QUARRY_RATE_LIMIT_MAX: '1000' });
    // A route that fails the way a bug would, to see what a 500 shows.
    t.app.get('/api/v1/test/boom', async () => {
      throw new Error('secret internal detail: password=hunter2');
    });
    // A route built from the shared parameter blocks, to see how bad input is answered.
    t.app.get(
      '/api/v1/test/params/:chain/:address',
      {
        schema: {
          params: AddressPathParams,
          querystring: Type.Object({
            limit: IntegerQuery({ minimum: 1, maximum: 100, default: 25, description: 'limit' }),
            offset: IntegerQuery({ minimum: 0, default: 0, description: 'offset' }),
            direction: Type.Optional(StringEnum(['in', 'out', 'both'] as const)),
            with_labels: BooleanQuery('labels'),
            window: WindowQuery('7d'),
          }),
        },
      },
      async (request) => {
        const { chain, address } = request.params as { chain: 'pow' | 'pos'; address: string };
        const query = request.query as { window?: string; with_labels?: 'true' | 'false' | '1' | '0'; limit: number };
        return { address: addressParam(request, chain, address), days: parseWindow(query.window, { fallback: '7d' }).days, labels: isTrue(query.with_labels), limit: query.limit };
      },
    );
  });
  after(() => t.close());

  it('404 for an unknown route, with or without a key', async () => {
    assertProblem(await t.app.inject({ url: '/api/v1/nothing/here', headers: AUTH }), 404);
    assertProblem(await t.app.inject({ url: '/nowhere' }), 404);
  });

  it('404 for an unknown chain', async () => {
    const body = assertProblem(await t.app.inject({ url: '/api/v1/btc/addresses/stats/summary', headers: AUTH }), 404);
    assert.match(body.detail, /unknown chain/);
  });

  it('401 before anything else is looked at', async () => {
    assertProblem(await t.app.inject({ url: '/api/v1/btc/addresses/stats/summary' }), 401);
  });

  const POS = 'Q' + 'ab'.repeat(20);
  it('answers good parameters with their parsed values', async () => {
    const res = await t.app.inject({ url: `/api/v1/test/params/pos/0x${'AB'.repeat(20)}?with_labels=1&window=2w&limit=100`, headers: AUTH });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { address: POS, days: 14, labels: true, limit: 100 });
  });

  for (const [query, param, message] of [
    ['limit=0', 'limit', /at least 1/],
    ['limit=101', 'limit', /at most 100/],
    ['limit=abc', 'limit', /whole number/],
    ['limit=2.5', 'limit', /whole number/],
    ['offset=-1', 'offset', /at least 0/],
    ['direction=sideways', 'direction', /one of: in, out, both/],
    ['with_labels=yes', 'with_labels', /one of: true, false, 1, 0/],
    ['window=7', 'window', /malformed/],
    ['window=0d', 'window', /malformed/],
    ['window=3651d', 'window', /10 years/],
  ] as const) {
    it(`400 naming ${param} for ${query}`, async () => {
      const body = assertProblem(await t.app.inject({ url: `/api/v1/test/params/pos/${POS}?${query}`, headers: AUTH }), 400);
      assert.equal(body.errors[0].param, param);
      assert.match(body.errors[0].message, message);
      assert.ok(body.detail.startsWith(param));
    });
  }

  it('400 naming each bad parameter at once', async () => {
    const body = assertProblem(await t.app.inject({ url: `/api/v1/test/params/pos/${POS}?limit=0&direction=up`, headers: AUTH }), 400);
    assert.deepEqual(body.errors.map((e: { param: string }) => e.param).sort(), ['direction', 'limit']);
  });

  for (const address of ['nope', 'Q' + 'ab'.repeat(19), '0x' + 'zz'.repeat(20), 'Q' + 'ab'.repeat(21)]) {
    it(`400 naming address for ${address.slice(0, 12)}…`, async () => {
      const body = assertProblem(await t.app.inject({ url: `/api/v1/test/params/pos/${address}`, headers: AUTH }), 400);
      assert.equal(body.errors[0].param, 'address');
    });
  }

  it('400 naming the path parameter whose percent-encoding is broken or which is too long', async () => {
    for (const [url, param] of [
      ['/api/v1/pow/addresses/%ZZ', 'address'],
      ['/api/v1/pos/addresses/Q%/transactions', 'address'],
      ['/api/v1/pos/addresses/%C0%AE', 'address'],
      ['/api/v1/p%Fw/addresses/Q00', 'chain'],
      [`/api/v1/pos/addresses/${'Q'.repeat(201)}`, 'address'],
      [`/api/v1/pos/addresses/${'Q'.repeat(5187)}`, 'address'],
      [`/api/v1/${'x'.repeat(5187)}/addresses/stats/summary`, 'chain'],
      [`/api/v1/pos/validators/0x${'a'.repeat(5185)}`, 'validator'],
    ] as const) {
      const body = assertProblem(await t.app.inject({ url, headers: AUTH }), 400);
      assert.equal(body.errors[0].param, param, url);
    }
  });

  it('answers what the HTTP parser rejects with a problem body', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const exchange = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(request));
        let answer = '';
        socket.setEncoding('utf8').on('data', (chunk) => (answer += chunk)).on('close', () => resolve(answer)).on('error', reject);
      });
    for (const [request, status] of [
      [`GET /api/v1/pos/addresses/stats/summary?cursor=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
      ['GET /api/v1/pos/addresses/\u0001 HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['GET / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
    ] as const) {
      const answer = await exchange(request);
      const [head, body] = answer.split('\r\n\r\n') as [string, string];
      assert.match(head, new RegExp(`^HTTP/1.1 ${status} `), head);
      assert.match(head, /content-type: application\/problem\+json/i);
      const problem = JSON.parse(body);
      assert.equal(problem.status, status);
      assert.equal(typeof problem.type, 'string');
      assert.equal(typeof problem.detail, 'string');
    }
  });

  it('500 without internals', async () => {
    const body = assertProblem(await t.app.inject({ url: '/api/v1/test/boom', headers: AUTH }), 500);
    assert.equal(body.detail, 'an internal error occurred');
    assert.ok(!JSON.stringify(body).includes('hunter2'));
  });

  it('sets Cache-Control and an ETag, and answers 304 to If-None-Match', async () => {
    const first = await t.app.inject({ url: '/api/v1/pow/addresses/stats/summary', headers: AUTH });
    assert.equal(first.statusCode, 200);
    assert.match(String(first.headers['cache-control']), /^private, max-age=\d+$/);
    const etag = String(first.headers.etag);
    assert.ok(etag.length > 2);
    const second = await t.app.inject({ url: '/api/v1/pow/addresses/stats/summary', headers: { ...AUTH, 'if-none-match': etag } });
    assert.equal(second.statusCode, 304);
  });

  it('compresses large answers when asked', async () => {
    const res = await t.app.inject({ url: '/api/v1/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(res.headers['content-encoding'], 'gzip');
  });
});

describeOnOneStore('rate limiting', (getStore) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(getStore(), { QUARRY_RATE_LIMIT_MAX: '3', QUARRY_RATE_LIMIT_WINDOW: '1m' });
  });
  after(() => t.close());

  it('counts per key, sends RateLimit headers, and answers 429 with Retry-After', async () => {
    const url = '/api/v1/pos/addresses/stats/summary';
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ url, headers: AUTH });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['ratelimit-limit'], '3');
      assert.equal(res.headers['ratelimit-remaining'], String(2 - i));
    }
    const limited = await t.app.inject({ url, headers: AUTH });
    const body = assertProblem(limited, 429);
    assert.ok(Number(limited.headers['retry-after']) > 0);
    assert.equal(limited.headers['ratelimit-remaining'], '0');
    assert.match(body.detail, /rate limit/);
  });
});

describeEachStore('store outage', (_getStore, kind) => {
  it('503 with Retry-After when the store cannot be reached', async () => {
    const store = await openTestStore(kind);
    const t = await buildTestApp(store);
    const { query, close } = store;
    let dead: ReturnType<typeof createStore> | undefined;
    if (kind === 'pglite') {
      await store.close();
    } else {
      // Point the running app at a server that does not answer.
      dead = createStore(createPostgresDriver('postgres://postgres@127.0.0.1:1/none'), { retries: 1 });
      Object.assign(store, { query: dead.query });
    }
    try {
      const body = assertProblem(await t.app.inject({ url: '/api/v1/pow/addresses/stats/summary', headers: AUTH }), 503);
      assert.match(body.detail, /unavailable/);
      const ready = await t.app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 503);
    } finally {
      await t.close();
      // The real store, put back and closed (its test database dropped): its idle connections
      // would otherwise hold the test process open.
      if (dead) {
        await dead.close();
        Object.assign(store, { query });
        await close();
      }
    }
  });
});
