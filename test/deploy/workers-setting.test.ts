/** How many API processes `quarry serve` runs (docs/deploy.md): the flag, QUARRY_WORKERS, the store's default. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveWorkers } from '../../src/cli/commands/serve.ts';
import { restartDelayMs } from '../../src/cli/cluster.ts';
import { ConfigError, loadConfig } from '../../src/config/env.ts';

const PG = { QUARRY_DATABASE_URL: 'postgres://quarry@127.0.0.1:5432/quarry' };

describe('quarry serve --workers', () => {
  it('defaults to one per core on PostgreSQL and to one on the embedded store', () => {
    assert.equal(resolveWorkers(undefined, loadConfig(PG), 6), 6);
    assert.equal(resolveWorkers(undefined, loadConfig({}), 6), 1);
  });

  it('takes QUARRY_WORKERS, and the flag over it', () => {
    assert.equal(resolveWorkers(undefined, loadConfig({ ...PG, QUARRY_WORKERS: '3' }), 6), 3);
    assert.equal(resolveWorkers('2', loadConfig({ ...PG, QUARRY_WORKERS: '3' }), 6), 2);
    assert.equal(resolveWorkers('1', loadConfig({}), 6), 1);
  });

  it('refuses more than one process on the embedded store, and bad numbers, naming the setting', () => {
    assert.throws(() => resolveWorkers('2', loadConfig({}), 6), (error: unknown) => error instanceof ConfigError && /--workers 2 needs PostgreSQL \(QUARRY_DATABASE_URL\)/.test(error.message));
    assert.throws(() => resolveWorkers(undefined, loadConfig({ QUARRY_WORKERS: '4' }), 6), /--workers 4 needs PostgreSQL/);
    for (const bad of ['0', '257', 'two', '1.5', '-1']) {
      assert.throws(() => resolveWorkers(bad, loadConfig(PG), 6), /--workers: must be a whole number from 1 to 256/, bad);
    }
    assert.throws(() => loadConfig({ QUARRY_WORKERS: '0' }), /QUARRY_WORKERS: must be a whole number from 1 to 256/);
  });

  it('restarts a worker at once after a healthy life, and doubles the wait while workers die young, up to 10 s', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6, 7, 8].map(restartDelayMs), [0, 250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  });
});
