/**
 * `quarry index pow --archive` killed with SIGKILL at a random point of the import (reading the
 * shards, writing, finishing the bulk load) and restarted ends with the same store as the generator
 * ingested directly, marked final. The indexer runs as the real command in a child process, on one
 * store (PostgreSQL when the run has one: a child on the embedded store spends most of its time
 * opening it); that the pipeline outlives a kill on both stores is pow-grpc-kill.test.ts's.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import sql from 'sql-template-tag';
import { Rng } from '../../src/sources/synthetic/rng.ts';
import { createPgliteDriver } from '../../src/store/pglite.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, dropTestDatabase, storeKinds } from '../support/stores.ts';
import { quarryArgs } from '../support/quarry-command.ts';
import { FakeQrlNode } from '../fakes/qrl-node/server.ts';
import { feed, generatePowItems, referenceDigest, storeDigest } from '../fakes/qrl-node/world.ts';
import { archiveBlocks, writeArchive } from '../fakes/qrl-archive/writer.ts';

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Runs `quarry index pow --archive` until it exits, or kills it with SIGKILL `killAfterMs` after it
 * logs that the import starts; true if it finished.
 */
function runIndexer(archive: string, env: Record<string, string>, killAfterMs: number | null): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, quarryArgs(['index', 'pow', '--archive', archive, '--no-progress']), {
      cwd: root,
      env: { ...process.env, QUARRY_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let timer: NodeJS.Timeout | undefined;
    const watch = (chunk: Buffer) => {
      output += String(chunk);
      if (killAfterMs !== null && timer === undefined && output.includes('indexing pow from the v1 archive')) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') resolve(false);
      else if (code === 0) resolve(true);
      else reject(new Error(`quarry index pow --archive exited with ${code}: ${output.slice(-2000)}`));
    });
  });
}

describe('quarry index pow --archive killed with SIGKILL and restarted', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  let reference: Promise<{ archive: string; expected: Record<string, string>; terminal: number }> | undefined;
  const chain = () =>
    (reference ??= (async () => {
      const items = await generatePowItems({ seed: 21, days: 0.15 });
      const views = feed(new FakeQrlNode({ signatureBytes: 64 }), items);
      const blocks = archiveBlocks(items);
      const archive = mkdtempSync(path.join(os.tmpdir(), 'quarry-pow-archive-kill-'));
      dirs.push(archive);
      writeArchive(archive, blocks, { shardBlocks: 60 });
      return { archive, expected: await referenceDigest(views), terminal: blocks.length - 1 };
    })());

  for (const kind of [storeKinds().includes('postgres') ? 'postgres' : 'pglite']) {
    it(`ends with the same store as an uninterrupted import, marked final [${kind}]`, async () => {
      const { archive, expected, terminal } = await chain();
      const env: Record<string, string> = {};
      let open: () => Promise<Store>;
      let databaseUrl: string | undefined;
      env.QUARRY_DATA_DIR = mkdtempSync(path.join(os.tmpdir(), 'quarry-pow-archive-kill-'));
      dirs.push(env.QUARRY_DATA_DIR);
      if (kind === 'pglite') {
        open = async () => createStore(await createPgliteDriver(path.join(env.QUARRY_DATA_DIR!, 'pglite')));
      } else {
        const url = await createTestDatabase();
        databaseUrl = url;
        env.QUARRY_DATABASE_URL = url;
        open = async () => createStore(createPostgresDriver(url, { poolSize: 2 }));
        // The command migrates only the embedded store by itself.
        const store = await open();
        const { migrate } = await import('../../src/store/migrate.ts');
        await migrate(store);
        await store.close();
      }
      const rng = new Rng(kind === 'pglite' ? 3 : 4, 'kill');
      let kills = 0;
      for (let run = 0; run < 4; run++) {
        // Killed once, soon after the import starts (it takes longer than that), then run to the end.
        const killAfter = kills === 0 ? 100 + rng.int(1000) : null;
        if (await runIndexer(archive, env, killAfter)) break;
        kills++;
      }
      assert.ok(kills >= 1, 'the indexer was never killed');
      const store = await open();
      try {
        const actual = await storeDigest(store);
        const [final] = await store.query<{ value: string }>('t', sql`SELECT value FROM chain_settings WHERE chain = 'pow' AND key = 'final'`);
        assert.equal(JSON.parse(final!.value).height, terminal);
        // The final mark is the one row the reference does not have.
        assert.match(actual.chain_settings!, /^1:/);
        actual.chain_settings = expected.chain_settings!;
        const differ = Object.keys({ ...actual, ...expected }).filter((t) => actual[t] !== expected[t]);
        assert.deepEqual(differ, []);
      } finally {
        await store.close();
        if (databaseUrl) await dropTestDatabase(databaseUrl);
      }
    });
  }
});
