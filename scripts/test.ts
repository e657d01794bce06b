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
 *   QUARRY_TEST_CONCURRENCY=N     files at once (default: one per core, at most four)
 *   QUARRY_TEST_TIMEOUT=MS        a file running longer is cancelled (default: ten minutes)
 *   QUARRY_TEST_CASE_TIMEOUT=MS   a test running longer fails, a hook at twice that (default: three minutes)
 *   QUARRY_TEST_PROPERTY_SEED=N   fast-check properties run from this seed (a failure's), with
 *   QUARRY_TEST_PROPERTY_PATH=P   that failure's path: test/support/property-replay.ts
 *   QUARRY_TEST_CPU_PROF=DIR      each test process writes a V8 CPU profile (node --cpu-prof) into DIR
 *   QUARRY_TEST_NODE_ARGS="…"     more node flags for every test process
 *   QUARRY_TEST_TMPDIR=DIR        the run's scratch space (default: /dev/shm when it has room, else the system's)
 *   QUARRY_TEST_STORES=each       every suite on every store kind, not those beside the store on PostgreSQL alone
 *
 * The files run as JavaScript that this script compiles once per run (scripts/test-build.ts). The
 * slow files (SLOW_FIRST) each run in a process of their own; the others run GROUP_SIZE to a
 * process, neighbours by path, so that files sharing a seed share the process's loaded modules,
 * compiled PGlite and the seed's expected figures. One process per core at once.
 *
 * It ends with the 15 slowest processes' wall and CPU times and the sums over all of them (scripts/test-runner.ts),
 * then node's summary again.
 *
 * Seeds that many files share (the analytics world) are loaded once per run and store kind and
 * copied from there (test/support/snapshots.ts), in a folder this run owns.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { findPostgresBin, startLocalCluster, type LocalCluster } from '../src/store/local-cluster.ts';
import { buildTests } from './test-build.ts';

const root = path.resolve(import.meta.dirname, '..');
const filters = process.argv.slice(2);

/**
 * The slowest files (twenty seconds or more; the timing report at the end of `npm test` names
 * them), each in a process of its own, started first, longest first: the processes share two
 * cores, and a long one started last runs on alone while the other core idles.
 * scripts/test-runner.ts keeps this order (node's `--test` would sort the files by path).
 */
const SLOW_FIRST = [
  'test/deploy/soak.test.ts',
  'test/cli/demo.test.ts',
  'test/indexer/pow-grpc.test.ts',
  'test/indexer/pos-go-qrl.test.ts',
  'test/indexer/pos-go-qrl-64.test.ts',
  'test/api/store-parity.test.ts',
  'test/api/analytics/timeline/timeline.test.ts',
  'test/api/analytics/network/active-addresses-daily.test.ts',
  'test/ingest/properties.test.ts',
  'test/indexer/pow-grpc-kill.test.ts',
  'test/indexer/pow-stall.test.ts',
  'test/api/dashboard.test.ts',
  'test/api/errors.test.ts',
  'test/ingest/rollup-registry.test.ts',
  'test/api/events.test.ts',
  'test/ingest/never-skip.test.ts',
  'test/ingest/exchange-venues.test.ts',
];
const slowRank = (file: string) => {
  const rank = SLOW_FIRST.indexOf(file.split(path.sep).join('/'));
  return rank === -1 ? SLOW_FIRST.length : rank;
};
const allFiles = ['src', 'test']
  .flatMap((dir) => readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' }).map((file) => path.join(dir, file)))
  .filter((file) => file.endsWith('.test.ts'))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort()
  .sort((a, b) => slowRank(a) - slowRank(b));

/**
 * Files that share a process: each slow file alone (its own timeout, started first), every other
 * file in a run of GROUP_SIZE neighbours by path. A process costs a second or more before its first
 * test (loading the modules, compiling PGlite, computing a seed's expected figures), which most
 * files' tests take less than; the suites of a process on the same seed also share its store and
 * app (test/support/seeded-app.ts).
 *
 * The groups start in reverse path order: test/ingest and test/indexer (real nodes, pipelines) cost
 * the most, the unit tests under src/ the least, and the cheapest processes last keep both cores
 * busy to the end of the run instead of a long one finishing alone.
 */
const GROUP_SIZE = 8;
function processGroups(files: string[]): string[][] {
  const alone = files.filter((file) => slowRank(file) < SLOW_FIRST.length).map((file) => [file]);
  const rest = files.filter((file) => slowRank(file) === SLOW_FIRST.length).sort();
  const grouped: string[][] = [];
  for (let i = 0; i < rest.length; i += GROUP_SIZE) grouped.push(rest.slice(i, i + GROUP_SIZE));
  return [...alone, ...grouped.reverse()];
}

if (allFiles.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}

/**
 * The run's scratch space: TMPDIR of this process (the PostgreSQL server's folder, the snapshots) and
 * of every test process, removed at the end. A file system in memory (/dev/shm) when the machine
 * has one with room to spare, else the system's. The tests create and drop databases by the
 * hundred and unpack store snapshots: thousands of files created and deleted a minute, which on a
 * disk's file system cost the server kernel time in inode allocation (ext4 steps over recently
 * deleted inodes) for every database created. QUARRY_TEST_TMPDIR names another folder.
 */
const SCRATCH_MIN_FREE_BYTES = 6 * 1024 ** 3;
/** statfs(2)'s f_type of tmpfs. */
const TMPFS_MAGIC = 0x01021994;
function scratchRoot(): string {
  if (process.env.QUARRY_TEST_TMPDIR) return process.env.QUARRY_TEST_TMPDIR;
  try {
    const memory = statfsSync('/dev/shm');
    if (memory.type === TMPFS_MAGIC && memory.bavail * memory.bsize >= SCRATCH_MIN_FREE_BYTES) return '/dev/shm';
  } catch {
    // No /dev/shm here.
  }
  return os.tmpdir();
}
const scratch = mkdtempSync(path.join(scratchRoot(), 'quarry-test-'));
// Other users may need to reach into it, as into /tmp: the server runs as `postgres` when the tests run as root.
chmodSync(scratch, 0o1777);
process.env.TMPDIR = scratch;
// However the runner ends: on /dev/shm what is left behind holds memory until the machine restarts.
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

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
// The node named is the one every test process and every `quarry` they start runs on (process.execPath).
console.log(`testing on PGlite${env.QUARRY_TEST_DATABASE_URL && mode !== 'off' ? ' and PostgreSQL' : ' only'} (${allFiles.length} files), Node ${process.version}`);

env.QUARRY_TEST_SNAPSHOTS = path.join(scratch, 'snapshots');
mkdirSync(env.QUARRY_TEST_SNAPSHOTS);

// Files at once: one per core, at most four. The run's test processes, their children and the
// PostgreSQL server keep the cores busy already; a third file at once on two cores only shares them.
const concurrency = Number(process.env.QUARRY_TEST_CONCURRENCY) || Math.max(1, Math.min(4, os.availableParallelism()));
// A file that runs past this is cancelled and its process killed (node 20 applies the test timeout
// to each file's process as a whole, not to each test): well above the slowest file (the demo's,
// 4.5 minutes here and over 10 on CI's slower machine beside the soak test), below CI's time limit.
env.QUARRY_TEST_TIMEOUT ||= String(1_800_000);
env.QUARRY_TEST_CONCURRENCY = String(concurrency);
const timings = path.join(env.QUARRY_TEST_SNAPSHOTS, 'timings.txt');
env.QUARRY_TEST_TIMINGS = timings;
env.QUARRY_TEST_CPU = path.join(env.QUARRY_TEST_SNAPSHOTS, 'cpu.txt');
// A test or hook running past this fails (test/support/test-timeout.ts): well above the slowest
// test on a loaded machine, well below the file's limit, so that a hang names its test.
env.QUARRY_TEST_CASE_TIMEOUT ||= String(180_000);
// The files run as JavaScript compiled once for this run (scripts/test-build.ts), with source maps
// so that stack traces name the TypeScript sources.
const build = path.join(env.QUARRY_TEST_SNAPSHOTS, 'build');
await buildTests(root, build);
env.QUARRY_TEST_BUILD = build;
const compiled = (file: string) => path.join(build, file.replace(/\.ts$/, '.js'));
const groups = processGroups(allFiles);
const entries = groups.map((group, i) => {
  if (group.length === 1) return compiled(group[0]!);
  // An entry that imports the group's files in order: node:test runs their suites one after another.
  const entry = path.join(build, 'test-groups', `group-${String(i + 1).padStart(2, '0')}.test.js`);
  mkdirSync(path.dirname(entry), { recursive: true });
  writeFileSync(entry, group.map((file) => `import ${JSON.stringify(pathToFileURL(compiled(file)).href)};\n`).join(''));
  return entry;
});
// The timing report names a group by its files.
env.QUARRY_TEST_GROUPS = path.join(env.QUARRY_TEST_SNAPSHOTS, 'groups.json');
writeFileSync(env.QUARRY_TEST_GROUPS, JSON.stringify(Object.fromEntries(entries.map((entry, i) => [entry, groups[i]]))));
const nodeArgs = ['--enable-source-maps', '--import', compiled('test/support/test-timeout.ts'), '--import', compiled('test/support/process-cpu.ts'), '--import', compiled('test/support/property-replay.ts')];
// node:test starts each file's process with the runner's own node flags, so the profile flags reach them.
if (process.env.QUARRY_TEST_NODE_ARGS) nodeArgs.push(...process.env.QUARRY_TEST_NODE_ARGS.split(' ').filter(Boolean));
if (process.env.QUARRY_TEST_CPU_PROF) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.QUARRY_TEST_CPU_PROF)}`);
const child = spawn(process.execPath, [...nodeArgs, compiled('scripts/test-runner.ts'), ...entries], {
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
const serverCpu = cluster ? clusterCpuSeconds(cluster) : undefined;
await cluster?.stop();
// The per-file timings, then node's summary again, so that it stays the last thing printed.
if (serverCpu !== undefined) console.log(`\nthe run's PostgreSQL server: ${serverCpu.toFixed(1)} s CPU (a daemon: not in the CPU time of \`time npm test\`)`);
if (existsSync(timings)) process.stdout.write(readFileSync(timings, 'utf8'));
process.exit(code);

/**
 * CPU seconds of the server so far: its postmaster's own and that of the sessions it has reaped
 * (every test's connection, closed by now), from Linux's /proc; undefined where there is none.
 */
function clusterCpuSeconds(server: LocalCluster): number | undefined {
  try {
    const pid = readFileSync(path.join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]!.trim();
    // The fields after the command's closing parenthesis: utime, stime, cutime, cstime are the 12th to 15th, in clock ticks (100 a second).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  } catch {
    return undefined;
  }
}
