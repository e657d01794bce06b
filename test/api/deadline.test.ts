/**
 * Each request's deadline on the store (src/store/store.ts `withDeadline`, src/api/plugins/deadline.ts):
 * a statement that would start after it is refused, and the request is a 503 saying the store is
 * busy. On the embedded store a statement waits its turn behind the one running (PGlite runs one at
 * a time, on the event loop, and cannot interrupt it): the deadline is checked again when its turn
 * comes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import sql from 'sql-template-tag';
import { StoreBusyError } from '../../src/store/errors.ts';
import { withDeadline } from '../../src/store/store.ts';
import { cached } from '../../src/api/analytics/route.ts';
import type { ApiContext } from '../../src/api/context.ts';
import { AUTH, buildTestApp } from '../support/app.ts';
import { describeEachStore } from '../support/stores.ts';

const ROUTE = '/api/v1/pos/addresses/stats/summary';

describeEachStore('request deadlines on the store', (store, kind) => {
  it('refuses a statement issued past the deadline, runs one issued before it', async () => {
    const [inTime] = await withDeadline(5_000, () => store().query<{ one: number }>('test.deadline', sql`SELECT 1 AS one`));
    assert.equal(inTime?.one, 1);
    await assert.rejects(
      withDeadline(1, async () => {
        await sleep(20);
        return store().query('test.deadline', sql`SELECT 1`);
      }),
      (error: unknown) => error instanceof StoreBusyError && /past its 1 ms deadline/.test(error.message),
    );
    // Work outside any request has no deadline.
    await sleep(5);
    assert.equal((await store().query<{ one: number }>('test.deadline', sql`SELECT 1 AS one`))[0]?.one, 1);
  });

  it('a figure computed once for many requests finishes past the deadline of the request that started it', async () => {
    const ctx = {} as ApiContext;
    const compute = async () => {
      await sleep(20);
      return (await store().query<{ one: number }>('test.deadline.shared', sql`SELECT 1 AS one`))[0]?.one;
    };
    // The first request is out of time before the computation reaches its statement; the computation
    // still answers it and a request arriving meanwhile.
    const first = withDeadline(1, () => cached(ctx, 'shared', 60, compute));
    const second = withDeadline(5_000, () => cached(ctx, 'shared', 60, compute));
    assert.deepEqual(await Promise.all([first, second]), [1, 1]);
    // A request's own statement past its deadline is still refused.
    await assert.rejects(
      withDeadline(1, async () => {
        await sleep(20);
        return store().query('test.deadline', sql`SELECT 1`);
      }),
      StoreBusyError,
    );
  });

  it('answers 503 "busy" with Retry-After to a request past its deadline, then 200 again', async () => {
    const api = await buildTestApp(store(), { QUARRY_STATEMENT_TIMEOUT_MS: '1000', QUARRY_RATE_LIMIT_MAX: '100000', QUARRY_RESPONSE_CACHE_MB: '0' });
    try {
      assert.equal((await api.app.inject({ url: ROUTE, headers: AUTH })).statusCode, 200);
      if (kind === 'pglite') {
        // The store is busy for longer than the request's deadline: the request waits its turn, then gives up.
        const busy = store().query('test.busy', sql`SELECT pg_sleep(1.5)`);
        const started = performance.now();
        const res = await api.app.inject({ url: ROUTE, headers: AUTH });
        const waited = performance.now() - started;
        await busy;
        assert.equal(res.statusCode, 503);
        assert.equal(res.headers['retry-after'], '1');
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        assert.match((res.json() as { detail: string }).detail, /busy/);
        assert.ok(waited >= 1_000, `answered after ${Math.round(waited)} ms, when the busy statement ended`);
      } else {
        // A server runs the request's statements beside the busy one, on another connection.
        const busy = store().query('test.busy', sql`SELECT pg_sleep(1.5)`);
        const res = await api.app.inject({ url: ROUTE, headers: AUTH });
        await busy;
        assert.equal(res.statusCode, 200);
      }
      assert.equal((await api.app.inject({ url: ROUTE, headers: AUTH })).statusCode, 200);
    } finally {
      await api.close();
    }
  });
});
