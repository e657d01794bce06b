/**
 * `quarry index pow` killed with SIGKILL at random points of a backfill and restarted ends with the
 * same store as an uninterrupted run (the generator's chain ingested directly, in the node's
 * addresses). The fake QRL node runs here; the indexer runs as the real command in a child process.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { SourceItem } from '../../src/chain/model.ts';
import { Rng } from '../../src/sources/synthetic/rng.ts';
import { createPgliteDriver } from '../../src/store/pglite.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store } from '../../src/store/store.ts';
import { createTestDatabase, dropTestDatabase, storeKinds } from '../support/stores.ts';
import { quarryArgs } from '../support/quarry-command.ts';
import { generatePowItems, referenceDigest, startNodeWithChain, storeDigest } from '../fakes/qrl-node/world.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** Runs `quarry index pow` until it exits, or kills it with SIGKILL after `killAfterMs`; true if it finished. */
function runIndexer(env: Record<string, string>, killAfterMs: number | null): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, quarryArgs(['index', 'pow', '--no-progress', '--prefetch', '16']), {
      cwd: root,
      env: { ...process.env, QUARRY_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const timer = killAfterMs === null ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal === 'SIGKILL') resolve(false);
      else if (code === 0) resolve(true);
      else reject(new Error(`quarry index pow exited with ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

describe('quarry index pow killed with SIGKILL and restarted', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  // The chain and its reference digest, the same for both stores' runs.
  let reference: Promise<{ items: SourceItem[]; expected: Record<string, string> }> | undefined;
  const chain = () =>
    (reference ??= (async () => {
      const items = await generatePowItems({ seed: 21, days: 0.5 });
      const { node, views } = await startNodeWithChain(items);
      await node.stop();
      return { items, expected: await referenceDigest(views) };
    })());

  for (const kind of storeKinds()) {
    it(`ends with the same store as an uninterrupted run [${kind}]`, async () => {
      const { items, expected } = await chain();
      // A node that takes a few milliseconds per block stretches the backfill over several seconds.
      const { node, address } = await startNodeWithChain(items, { delayMs: 5 });

      const env: Record<string, string> = { QUARRY_POW_NODE: address };
      let open: () => Promise<Store>;
      let databaseUrl: string | undefined;
      if (kind === 'pglite') {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'quarry-pow-kill-'));
        dirs.push(dir);
        env.QUARRY_DATA_DIR = dir;
        open = async () => createStore(await createPgliteDriver(path.join(dir, 'pglite')));
      } else {
        const url = await createTestDatabase();
        databaseUrl = url;
        env.QUARRY_DATABASE_URL = url;
        env.QUARRY_DATA_DIR = mkdtempSync(path.join(os.tmpdir(), 'quarry-pow-kill-'));
        dirs.push(env.QUARRY_DATA_DIR);
        open = async () => createStore(createPostgresDriver(url, { poolSize: 2 }));
        // The command migrates only the embedded store by itself.
        const store = await open();
        const { migrate } = await import('../../src/store/migrate.ts');
        await migrate(store);
        await store.close();
      }
      const rng = new Rng(kind === 'pglite' ? 1 : 2, 'kill');
      let kills = 0;
      try {
        for (let run = 0; run < 12; run++) {
          // Early enough that a quiet machine's first sync (a couple of seconds) is still under way.
          const killAfter = kills < 3 ? 700 + rng.int(2500) : null;
          if (await runIndexer(env, killAfter)) break;
          kills++;
        }
      } finally {
        await node.stop();
      }
      assert.ok(kills >= 1, 'the indexer was never killed');
      const store = await open();
      try {
        const actual = await storeDigest(store);
        const differ = Object.keys({ ...actual, ...expected }).filter((t) => actual[t] !== expected[t]);
        assert.deepEqual(differ, []);
      } finally {
        await store.close();
        if (databaseUrl) await dropTestDatabase(databaseUrl);
      }
    });
  }
});
