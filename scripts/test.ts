/**
 * `npm test`: runs every *.test.ts under src/ and test/ with node:test, on PGlite and, when the
 * machine has PostgreSQL (or QUARRY_TEST_DATABASE_URL names one), on PostgreSQL too.
 *
 *   QUARRY_TEST_POSTGRES=auto     use a throwaway local server if the binaries exist (default)
 *   QUARRY_TEST_POSTGRES=require  fail if no PostgreSQL is available (CI)
 *   QUARRY_TEST_POSTGRES=off      PGlite only
 *
 * Extra arguments filter test files by substring: `npm test -- window cursor`.
 *
 * Seeds that many files share (the analytics world) are loaded once per run and store kind and
 * copied from there (test/support/snapshots.ts), in a folder this run owns.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findPostgresBin, startLocalCluster, type LocalCluster } from '../src/store/local-cluster.ts';

const root = path.resolve(import.meta.dirname, '..');
const filters = process.argv.slice(2);

/**
 * The files that take a minute or more, started first: the processes share two cores, and a long
 * file started last runs on alone while the other core idles (it cost minutes in alphabetical order).
 */
const SLOW_FIRST = [
  'test/ingest/properties.test.ts',
  'test/indexer/pow-grpc.test.ts',
  'test/ingest/rollup-registry.test.ts',
  'test/indexer/pow-grpc-kill.test.ts',
  'test/ingest/exchange-venues.test.ts',
  'test/api/analytics/timeline/timeline.test.ts',
  'test/api/addresses/top-active.test.ts',
];
const slowRank = (file: string) => {
  const rank = SLOW_FIRST.indexOf(file.split(path.sep).join('/'));
  return rank === -1 ? SLOW_FIRST.length : rank;
};
const files = ['src', 'test']
  .flatMap((dir) => readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' }).map((file) => path.join(dir, file)))
  .filter((file) => file.endsWith('.test.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort()
  .sort((a, b) => slowRank(a) - slowRank(b));

if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}

const mode = process.env.QUARRY_TEST_POSTGRES ?? 'auto';
let cluster: LocalCluster | undefined;
const env = { ...process.env };
if (!env.QUARRY_TEST_DATABASE_URL && mode !== 'off') {
  if (findPostgresBin()) {
    // A disposable server: durability settings off, as nothing here must survive a crash.
    cluster = await startLocalCluster({ settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } });
    env.QUARRY_TEST_DATABASE_URL = cluster.url;
  } else if (mode === 'require') {
    console.error('QUARRY_TEST_POSTGRES=require but no PostgreSQL binaries were found');
    process.exit(1);
  }
}
console.log(`testing on PGlite${env.QUARRY_TEST_DATABASE_URL && mode !== 'off' ? ' and PostgreSQL' : ' only'} (${files.length} files)`);

env.QUARRY_TEST_SNAPSHOTS = mkdtempSync(path.join(os.tmpdir(), 'quarry-test-snapshots-'));

const concurrency = Number(process.env.QUARRY_TEST_CONCURRENCY) || Math.max(1, Math.min(4, os.availableParallelism()));
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files], {
  cwd: root,
  env,
  stdio: 'inherit',
});
// Interrupted (CI's time limit, ^C) or not, the server and the snapshots leave nothing on the disk.
// The signal may arrive more than once (from tsx, which relays it, and from the terminal or CI).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    child.kill(signal);
  });
}
const code: number = await new Promise((resolve) => child.on('exit', (status) => resolve(status ?? 1)));
await cluster?.stop();
rmSync(env.QUARRY_TEST_SNAPSHOTS, { recursive: true, force: true });
process.exit(code);
