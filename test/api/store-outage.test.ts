/**
 * The API while its PostgreSQL server is down: every /api/v1 request is a 503 problem with
 * Retry-After, /readyz is 503, and both answer again once the server is back, without a restart,
 * however long the outage lasted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalCluster } from '../../src/store/local-cluster.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store } from '../../src/store/store.ts';
import { AUTH, buildTestApp, type TestApp } from '../support/app.ts';
import { ownClusterSkip, startOwnCluster } from '../support/own-cluster.ts';
import { waitFor } from '../support/wait-for.ts';

const ROUTE = '/api/v1/pos/addresses/stats/summary';

/** GET on `api`, with the test key unless other headers are given. */
const getter = (api: TestApp) => (url: string, headers: Record<string, string> = AUTH) => api.app.inject({ method: 'GET', url, headers });

describe('the API during a store outage [postgres]', { skip: ownClusterSkip() }, () => {
  let cluster: LocalCluster;
  let store: Store;
  let api: TestApp;
  before(async () => {
    cluster = await startOwnCluster();
    store = createStore(createPostgresDriver(cluster.url, { poolSize: 2, connectTimeoutMs: 2000, statementTimeoutMs: 5000, queryTimeoutMs: 7000 }), { retryDelayMs: 50 });
    await migrate(store);
    api = await buildTestApp(store);
  });
  after(async () => {
    await api?.close();
    await store?.close();
    await cluster?.stop();
  });

  it('answers 503 with Retry-After while the server is down, and 200 again once it is back', async () => {
    const get = getter(api);
    assert.equal((await get(ROUTE)).statusCode, 200);
    assert.equal((await get('/readyz', {})).statusCode, 200);

    await cluster.stopServer();
    for (const attempt of ['first', 'second']) {
      const started = performance.now();
      const down = await get(ROUTE);
      assert.equal(down.statusCode, 503, `${attempt} request: ${down.body}`);
      assert.match(String(down.headers['content-type']), /^application\/problem\+json/);
      assert.match(String(down.headers['retry-after']), /^[1-9]\d*$/);
      assert.equal(down.json().status, 503);
      assert.ok(performance.now() - started < 5000, `${attempt} answered without hanging`);
    }
    const notReady = await get('/readyz', {});
    assert.equal(notReady.statusCode, 503);
    assert.equal(notReady.json().status, 'store unreachable');
    // Without a key it is still a 401: the outage does not open the API.
    assert.equal((await get(ROUTE, {})).statusCode, 401);
    await waitFor(async () => /store unavailable; api waits for it/.test(api.logs()), 'the outage logged', 5000);

    await cluster.startServer();
    await waitFor(async () => (await get('/readyz', {})).statusCode === 200, '/readyz to answer 200 again', 30_000);
    const back = await get(ROUTE);
    assert.equal(back.statusCode, 200, back.body);
    assert.match(api.logs(), /store is back after \d+\.\d s; api resumes/);
  });

  it('ends an outage that outlasts the deadline of the request that met it', async () => {
    // The request that finds the store down starts the wait for it; the wait must not inherit that
    // request's deadline (QUARRY_STATEMENT_TIMEOUT_MS), or every ping after it is refused unsent.
    const short = await buildTestApp(store, { QUARRY_STATEMENT_TIMEOUT_MS: '500' });
    try {
      const get = getter(short);
      assert.equal((await get(ROUTE)).statusCode, 200);
      await cluster.stopServer();
      assert.equal((await get(ROUTE)).statusCode, 503);
      await sleep(1500);
      await cluster.startServer();
      await waitFor(async () => (await get('/readyz', {})).statusCode === 200, '/readyz to answer 200 again', 30_000);
      assert.equal((await get(ROUTE)).statusCode, 200);
      // The wait itself ended the outage (no ping was refused for the request's deadline).
      assert.match(short.logs(), /store is back after [1-9]\d*\.\d s; api resumes/);
    } finally {
      await short.close();
    }
  });
});
