import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, copyFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import sql from 'sql-template-tag';
import { createTestDatabase, describeEachStore, dropTestDatabase, openTestStore, storeKinds } from '../../test/support/stores.ts';
import { StoreError, StoreUnavailableError } from './errors.ts';
import { loadMigrations, migrate, migrationStatus } from './migrate.ts';
import { createPostgresDriver, StatementNames } from './postgres.ts';
import { createStore, type Store } from './store.ts';

describeEachStore('store', (getStore, kind) => {
  it('migrates an empty store to the latest version, once', async () => {
    const store = getStore();
    const status = await migrationStatus(store);
    assert.equal(status.pending.length, 0);
    assert.deepEqual(status.applied, loadMigrations().map((m) => m.version));
    assert.deepEqual(await migrate(store), []);
    const tables = await store.query<{ table_name: string }>(
      'test.tables',
      sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    const names = tables.map((t) => t.table_name);
    for (const expected of [
      'blocks', 'transactions', 'tx_recipients', 'internal_txs', 'token_contracts', 'token_transfers',
      'slaves', 'withdrawals', 'genesis_allocations', 'validators', 'staking_daily', 'labels', 'exchange_wallets',
      'migration_legs', 'reorgs', 'dead_letters', 'checkpoints', 'api_keys', 'address_summary', 'chain_stats',
    ]) {
      assert.ok(names.includes(expected), `table ${expected} exists on ${kind}`);
    }
  });

  it('returns the same value shapes on both stores', async () => {
    const [row] = await getStore().query<Record<string, unknown>>(
      'test.shapes',
      sql`SELECT 42::int8 AS count, ${10n ** 30n}::numeric(78,0) AS amount, '2026-01-02'::date AS day, 7::int4 AS small, true AS flag,
                 ARRAY[${10n ** 30n + 1n}::numeric, NULL, 0]::numeric[] AS amounts, ARRAY[1, 2]::int4[] AS smalls`,
    );
    assert.deepEqual(row, {
      count: 42, amount: '1000000000000000000000000000000', day: '2026-01-02', small: 7, flag: true,
      amounts: ['1000000000000000000000000000001', null, '0'], smalls: [1, 2],
    });
  });

  it('bulk-loads with COPY, escaping what would break a line', async () => {
    const store = getStore();
    const rows = [
      ['pos', 'Qa', 'tab\there', 'TAB', 18, null, null],
      ['pos', 'Qb', 'new\nline\\slash', null, null, 'Qc', 5n],
    ] as const;
    const written = await store.copyRows('test.copy', 'token_contracts', ['chain', 'address', 'name', 'symbol', 'decimals', 'creator', 'created_height'], rows);
    assert.equal(written, 2);
    const back = await store.query('test.copy.read', sql`SELECT address, name, symbol, decimals, creator, created_height FROM token_contracts ORDER BY address`);
    assert.deepEqual(back, [
      { address: 'Qa', name: 'tab\there', symbol: 'TAB', decimals: 18, creator: null, created_height: null },
      { address: 'Qb', name: 'new\nline\\slash', symbol: null, decimals: null, creator: 'Qc', created_height: 5 },
    ]);
  });

  it('rolls a failed transaction back entirely', async () => {
    const store = getStore();
    await assert.rejects(
      store.transaction('test.tx', async (tx) => {
        await tx.query('test.tx.insert', sql`INSERT INTO chain_settings (chain, key, value) VALUES ('pow', 'k', 'v')`);
        await tx.query('test.tx.fail', sql`SELECT 1 / 0`);
      }),
      (error: unknown) => error instanceof StoreError && error.label === 'test.tx.fail' && error.code === '22012',
    );
    assert.deepEqual(await store.query('test.tx.check', sql`SELECT * FROM chain_settings`), []);
  });

  it('keeps every query parameterised, even hostile input', async () => {
    const hostile = "x'); DROP TABLE blocks; --";
    const [row] = await getStore().query<{ v: string }>('test.param', sql`SELECT ${hostile}::text AS v`);
    assert.equal(row!.v, hostile);
    await getStore().query('test.param.check', sql`SELECT count(*) FROM blocks`);
  });

  const migrationsCopy = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'quarry-migrations-'));
    for (const file of readdirSync(new URL('./migrations/', import.meta.url))) {
      copyFileSync(new URL(`./migrations/${file}`, import.meta.url), path.join(dir, file));
    }
    return dir;
  };

  it('refuses an applied migration whose statements were edited', async () => {
    const dir = migrationsCopy();
    writeFileSync(path.join(dir, '0001_core.sql'), 'SELECT 1;\n', { flag: 'a' });
    await assert.rejects(migrate(getStore(), loadMigrations(dir)), /was changed after it was applied/);
    await assert.rejects(migrationStatus(getStore(), loadMigrations(dir)), /was changed after it was applied/);
  });

  it('accepts an applied migration whose comments were edited', async () => {
    const dir = migrationsCopy();
    writeFileSync(path.join(dir, '0001_core.sql'), '-- a corrected comment\n\n', { flag: 'a' });
    assert.deepEqual(await migrate(getStore(), loadMigrations(dir)), []);
    assert.deepEqual((await migrationStatus(getStore(), loadMigrations(dir))).pending, []);
  });

  it('accepts a ledger that recorded whole-file checksums', async () => {
    const store = getStore();
    const [first, corrected] = loadMigrations().filter((m) => m.version === 1 || m.version === 77);
    const recorded = async (version: number) =>
      (await store.query<{ checksum: string }>('test.ledger', sql`SELECT checksum FROM schema_migrations WHERE version = ${version}`))[0]!.checksum;
    const [before1, before77] = [await recorded(1), await recorded(77)];
    try {
      // 0001 as every ledger recorded it; 0077 as released, before its comment lost a measured figure.
      await store.query('test.ledger.file', sql`UPDATE schema_migrations SET checksum = ${first!.fileChecksum} WHERE version = 1`);
      await store.query('test.ledger.earlier', sql`UPDATE schema_migrations SET checksum = ${'b437d26bfa4a5e599dd8d4338503b7096808367446eecf716de3f7f9ae7160d6'} WHERE version = 77`);
      assert.deepEqual(await migrate(store), []);
      await store.query('test.ledger.other', sql`UPDATE schema_migrations SET checksum = ${'0'.repeat(64)} WHERE version = 77`);
      await assert.rejects(migrate(store), /0077_holder_state_previous was changed/);
    } finally {
      await store.query('test.ledger.back', sql`UPDATE schema_migrations SET checksum = ${before1} WHERE version = 1`);
      await store.query('test.ledger.back', sql`UPDATE schema_migrations SET checksum = ${before77} WHERE version = 77`);
    }
    assert.equal(corrected!.checksum, before77);
  });

  it('labels its timings', async () => {
    const stat = getStore().stats().get('test.shapes');
    assert.ok(stat && stat.count >= 1 && stat.totalMs > 0);
  });
});

describe('prepared statements', () => {
  it('names each text once, and stops naming at the budget', () => {
    const names = new StatementNames(2);
    const a = names.nameOf('SELECT 1');
    assert.match(a!, /^q_[0-9a-f]{24}$/);
    assert.equal(names.nameOf('SELECT 1'), a);
    const b = names.nameOf('SELECT 2');
    assert.ok(b && b !== a);
    assert.equal(names.nameOf('SELECT 3'), undefined);
    assert.equal(names.nameOf('SELECT 2'), b);
  });

  it('prepares the statements that reuse plans, on connections that keep the generic plan, and only those', { skip: !storeKinds().includes('postgres') }, async () => {
    const url = await createTestDatabase();
    const store = createStore(createPostgresDriver(url, { poolSize: 2, prepare: true }));
    try {
      const reused = (value: number) => sql`SELECT ${value}::int + 1 AS reused`;
      const planned = (value: number) => sql`SELECT ${value}::int + 2 AS planned`;
      for (const value of [1, 41]) {
        assert.deepEqual(await store.query('test.reused', reused(value), { reusePlan: true }), [{ reused: value + 1 }]);
        assert.deepEqual(await store.query('test.planned', planned(value)), [{ planned: value + 2 }]);
      }
      // The statements that reuse plans: prepared, and run twice with the one generic plan.
      const onPlannedOnce = await store.query<{ statement: string; generic_plans: number; custom_plans: number; mode: string }>(
        'test.prepared.planned_once',
        sql`SELECT statement, generic_plans, custom_plans, current_setting('plan_cache_mode') AS mode
            FROM pg_prepared_statements WHERE statement LIKE ${'%AS reused'}`,
        { reusePlan: true },
      );
      assert.deepEqual(onPlannedOnce, [{ statement: reused(0).text, generic_plans: 2, custom_plans: 0, mode: 'force_generic_plan' }]);
      // The others: on connections with the default mode, and nothing prepared there.
      const onDefault = await store.query<{ prepared: number; mode: string }>(
        'test.prepared.default',
        sql`SELECT (SELECT count(*)::int FROM pg_prepared_statements) AS prepared, current_setting('plan_cache_mode') AS mode`,
      );
      assert.deepEqual(onDefault, [{ prepared: 0, mode: 'auto' }]);
    } finally {
      await store.close();
      await dropTestDatabase(url);
    }
  });

  it('in a transaction, keeps the generic plan of the statements that reuse plans, and of those only', { skip: !storeKinds().includes('postgres') }, async () => {
    const url = await createTestDatabase();
    // One connection: the transaction's, and the statements after it.
    const store = createStore(createPostgresDriver(url, { poolSize: 1 }));
    const mode = sql`SELECT current_setting('plan_cache_mode') AS mode`;
    const reused = (value: number) => sql`SELECT ${value}::int + 1 AS reused, current_setting('plan_cache_mode') AS mode`;
    try {
      await store.transaction('test.in_transaction', async (tx) => {
        for (const value of [1, 41]) {
          assert.deepEqual(await tx.query('test.reused', reused(value), { reusePlan: true }), [{ reused: value + 1, mode: 'force_generic_plan' }]);
          // The statement after it is planned in the default mode again.
          assert.deepEqual(await tx.query('test.mode', mode), [{ mode: 'auto' }]);
        }
        // So is a script after it (its functions' statements would use the plan cache).
        await tx.query('test.reused', reused(2), { reusePlan: true });
        await tx.exec('test.script', `CREATE TEMP TABLE script_mode AS ${mode.text}`);
        assert.deepEqual(await tx.query('test.script_mode', sql`SELECT mode FROM script_mode`), [{ mode: 'auto' }]);
      });
      const prepared = await store.query<{ statement: string; generic_plans: number; custom_plans: number }>(
        'test.prepared.in_transaction',
        sql`SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE ${'%AS reused%'}`,
      );
      assert.deepEqual(prepared, [{ statement: reused(0).text, generic_plans: 3, custom_plans: 0 }]);
      // Outside the transaction, the connection is in the default mode.
      assert.deepEqual(await store.query('test.mode.after', mode), [{ mode: 'auto' }]);
    } finally {
      await store.close();
      await dropTestDatabase(url);
    }
  });
});

describe('planner settings', () => {
  it('turns parallel plans off where asked (the API), and leaves the server default elsewhere', { skip: !storeKinds().includes('postgres') }, async () => {
    const url = await createTestDatabase();
    const workers = (store: Store) =>
      store.query<{ workers: string }>('test.parallel', sql`SELECT current_setting('max_parallel_workers_per_gather') AS workers`);
    const serial = createStore(createPostgresDriver(url, { poolSize: 2, prepare: true, parallel: false }));
    const parallel = createStore(createPostgresDriver(url, { poolSize: 1 }));
    try {
      // Both kinds of connection of the API's store: those that keep plans and the others.
      assert.deepEqual(await workers(serial), [{ workers: '0' }]);
      assert.deepEqual(await serial.query('test.parallel.kept', sql`SELECT current_setting('max_parallel_workers_per_gather') AS workers`, { reusePlan: true }), [{ workers: '0' }]);
      const [byDefault] = await workers(parallel);
      assert.notEqual(byDefault!.workers, '0');
    } finally {
      await serial.close();
      await parallel.close();
      await dropTestDatabase(url);
    }
  });
});

describe('store outages', { skip: !storeKinds().includes('postgres') }, () => {
  it('reports an unreachable server as StoreUnavailableError after retrying', async () => {
    const store = createStore(createPostgresDriver('postgres://postgres@127.0.0.1:1/none'), { retries: 2, retryDelayMs: 10 });
    await assert.rejects(store.query('test.down', sql`SELECT 1`), (error: unknown) => error instanceof StoreUnavailableError && error.retryable);
    await store.close();
  });

  it('opens a fresh PostgreSQL database for each test store', async () => {
    const a = await openTestStore('postgres');
    const b = await openTestStore('postgres');
    assert.notEqual(a.url, b.url);
    await Promise.all([a.close(), b.close()]);
  });
});
