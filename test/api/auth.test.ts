import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import sql from 'sql-template-tag';
import { issueKey, revokeKey } from '../../src/auth/keys.ts';
import { describeOnOneStore } from '../support/stores.ts';
import { AUTH, buildTestApp, TEST_KEY, type TestApp } from '../support/app.ts';

const URL = '/api/v1/pos/addresses/stats/summary';

describeOnOneStore('authentication', (getStore) => {
  let t: TestApp;
  before(async () => {
    t = await buildTestApp(getStore());
  });
  after(() => t.close());

  const expect401 = async (headers: Record<string, string>, detail: RegExp) => {
    const res = await t.app.inject({ url: URL, headers });
    assert.equal(res.statusCode, 401);
    assert.match(res.headers['www-authenticate'] as string, /^Bearer/);
    assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
    const body = res.json();
    assert.equal(body.status, 401);
    assert.equal(body.type, '/problems/unauthorized');
    assert.match(body.detail, detail);
  };

  it('refuses a request without a key', () => expect401({}, /missing Authorization/));
  it('refuses a malformed header', async () => {
    await expect401({ authorization: TEST_KEY }, /malformed/);
    await expect401({ authorization: `Basic ${TEST_KEY}` }, /malformed/);
    await expect401({ authorization: 'Bearer ' }, /malformed/);
    await expect401({ authorization: `Bearer ${TEST_KEY} extra` }, /malformed/);
  });
  it('refuses an unknown key', () => expect401({ authorization: 'Bearer not-a-real-key-000000' }, /unknown or revoked/));

  it('accepts a key from QUARRY_API_KEYS', async () => {
    const res = await t.app.inject({ url: URL, headers: AUTH });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().chain, 'pos');
  });

  it('accepts an issued key until it is revoked', async () => {
    const { key, record } = await issueKey(getStore(), 'test client');
    assert.ok(key.startsWith(record.prefix));
    await t.keys.refresh();
    assert.equal((await t.app.inject({ url: URL, headers: { authorization: `Bearer ${key}` } })).statusCode, 200);
    assert.equal(await revokeKey(getStore(), String(record.id)), 1);
    await t.keys.refresh();
    await expect401({ authorization: `Bearer ${key}` }, /unknown or revoked/);
  });

  it('stores only a hash of issued keys', async () => {
    const { key } = await issueKey(getStore(), 'hash check');
    const rows = await getStore().query<Record<string, unknown>>('test.keys', sql`SELECT * FROM api_keys`);
    const secretPart = key.slice(10);
    assert.ok(rows.every((row) => !Object.values(row).some((v) => typeof v === 'string' && v.includes(secretPart))));
  });

  it('needs no key for health, readiness, docs and the OpenAPI document', async () => {
    for (const url of ['/healthz', '/readyz', '/docs', '/api/v1/openapi.json']) {
      const res = await t.app.inject({ url });
      assert.ok(res.statusCode === 200 || res.statusCode === 302, `${url} answered ${res.statusCode}`);
    }
  });

  it('never writes a key to the log', async () => {
    const { key } = await issueKey(getStore(), 'log check');
    await t.keys.refresh();
    await t.app.inject({ url: URL, headers: { authorization: `Bearer ${key}` } });
    await t.app.inject({ url: `${URL}?api_key=${TEST_KEY}`, headers: AUTH });
    await t.app.inject({ url: URL, headers: { authorization: 'Bearer wrong-key-1234567890' } });
    const logs = t.logs();
    assert.ok(logs.includes('/stats/summary'), 'requests are logged');
    assert.ok(!logs.includes(key), 'issued key absent');
    assert.ok(!logs.includes('wrong-key-1234567890'), 'unknown key absent');
    assert.ok(!logs.includes(`Bearer ${TEST_KEY}`), 'header absent');
  });
});
