/** src/api/server.ts: shutting down on a signal lets the requests in flight finish before the store closes. */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config/env.ts';
import { createLogger } from '../../src/log.ts';
import { closeOnSignal, startServer } from '../../src/api/server.ts';
import type { Store } from '../../src/store/store.ts';
import { AUTH, TEST_KEY } from '../support/app.ts';
import { openTestStore, storeKinds } from '../support/stores.ts';

for (const kind of storeKinds()) {
  describe(`shutdown [${kind}]`, () => {
    it('on SIGTERM a request in flight finishes with 200, then the store closes, without a pool error', async () => {
      const store = await openTestStore(kind);
      // The summary's query waits at this gate until the test opens it, after the signal.
      let entered!: () => void;
      const inQuery = new Promise<void>((resolve) => (entered = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let storeClosed = false;
      const held: Store = {
        ...store,
        query: async (label, query, options) => {
          if (label === 'addresses.stats_summary') {
            entered();
            await gate;
          }
          return store.query(label, query, options);
        },
        close: async () => {
          storeClosed = true;
          await store.close();
        },
      };

      let logged = '';
      const sink = new Writable({
        write(chunk, _encoding, done) {
          logged += chunk.toString();
          done();
        },
      });
      const logger = createLogger('info', sink);
      const config = loadConfig({ QUARRY_API_KEYS: TEST_KEY, PORT: '0', HOST: '127.0.0.1' });
      const server = await startServer(config, held, logger);
      const signals = new EventEmitter();
      let exited!: (code: number) => void;
      const exitCode = new Promise<number>((resolve) => (exited = resolve));
      closeOnSignal(logger, { server, store: held }, { signals, exit: (code) => exited(code) });

      const answer = fetch(`${server.url}/api/v1/pos/addresses/stats/summary`, { headers: AUTH });
      await inQuery;
      signals.emit('SIGTERM');
      await delay(200);
      assert.equal(storeClosed, false, 'the store stays open while a request is in flight');
      release();

      const res = await answer;
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(((await res.json()) as { chain: string }).chain, 'pos');
      assert.equal(res.headers.get('connection'), 'close', 'the connection ends with the answer');
      assert.equal(await exitCode, 0);
      assert.equal(storeClosed, true, 'the store closes once the request is answered');
      assert.doesNotMatch(logged, /Cannot use a pool|"level":50/, logged);
      assert.match(logged, /shutting down/);
    });
  });
}
