/** Browsers may call the API: CORS on every answer (errors too), preflights without a key, and 405 for non-GET methods. */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { AUTH, buildTestApp, type TestApp } from '../support/app.ts';
import { describeOnOneStore } from '../support/stores.ts';

const URL = '/api/v1/pos/addresses/stats/summary';
const ORIGIN = 'https://explorer.example.org';

describeOnOneStore('CORS and methods', (getStore) => {
  let open: TestApp;
  let listed: TestApp;
  let off: TestApp;
  before(async () => {
    open = await buildTestApp(getStore());
    listed = await buildTestApp(getStore(), { QUARRY_CORS_ORIGINS: `${ORIGIN},http://localhost:5173` });
    off = await buildTestApp(getStore(), { QUARRY_CORS_ORIGINS: 'off' });
  });
  after(async () => {
    await open.close();
    await listed.close();
    await off.close();
  });

  it('answers a preflight without a key, allowing GET with the Authorization header', async () => {
    const res = await open.app.inject({
      method: 'OPTIONS',
      url: URL,
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], '*');
    assert.match(String(res.headers['access-control-allow-methods']), /GET/);
    assert.match(String(res.headers['access-control-allow-headers']), /Authorization/i);
    assert.ok(Number(res.headers['access-control-max-age']) > 0);
  });

  it('lets a page read answers, errors and the rate-limit headers', async () => {
    const ok = await open.app.inject({ url: URL, headers: { ...AUTH, origin: ORIGIN } });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['access-control-allow-origin'], '*');
    for (const header of ['ETag', 'RateLimit-Remaining', 'Retry-After']) {
      assert.ok(String(ok.headers['access-control-expose-headers']).split(', ').includes(header), header);
    }
    const denied = await open.app.inject({ url: URL, headers: { origin: ORIGIN } });
    assert.equal(denied.statusCode, 401);
    assert.equal(denied.headers['access-control-allow-origin'], '*');
  });

  it('with a list, answers only the listed origins', async () => {
    const mine = await listed.app.inject({ url: URL, headers: { ...AUTH, origin: ORIGIN } });
    assert.equal(mine.headers['access-control-allow-origin'], ORIGIN);
    assert.match(String(mine.headers.vary), /Origin/i);
    const other = await listed.app.inject({ url: URL, headers: { ...AUTH, origin: 'https://elsewhere.example.com' } });
    assert.equal(other.statusCode, 200);
    assert.equal(other.headers['access-control-allow-origin'], undefined);
  });

  it('sends no CORS headers when off', async () => {
    const res = await off.app.inject({ url: URL, headers: { ...AUTH, origin: ORIGIN } });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], undefined);
  });

  it('answers other methods on an existing path with 405 and Allow, and unknown paths with 404', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const res = await open.app.inject({ method, url: `${URL}?x=1`, headers: AUTH });
      assert.equal(res.statusCode, 405, method);
      assert.equal(res.headers.allow, 'GET, HEAD');
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.json().type, '/problems/method-not-allowed');
    }
    const address = await open.app.inject({ method: 'POST', url: `/api/v1/pos/addresses/Q${'ab'.repeat(20)}/transactions`, headers: AUTH });
    assert.equal(address.statusCode, 405);
    const unknown = await open.app.inject({ method: 'POST', url: '/api/v1/pos/nothing', headers: AUTH });
    assert.equal(unknown.statusCode, 404);
  });
});
