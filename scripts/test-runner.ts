/**
 * The node:test run that `npm test` (scripts/test.ts) starts, compiled (scripts/test-build.ts), as `node test-runner.js FILE…`:
 * the files in the order given (node's `--test` sorts them by path, which starts the slowest last),
 * the spec reporter on stdout, and a per-process timing report written to QUARRY_TEST_TIMINGS: each
 * process's wall time (one test file, or a group of them, start to end), its own CPU time (user +
 * system, from QUARRY_TEST_CPU: test/support/process-cpu.ts) and when it started, the slowest first
 * (QUARRY_TEST_SLOWEST of them, 15 unless set), the sums over all processes, then node's summary lines again, so that scripts/test.ts can print them after the report.
 * On a busy machine the wall times vary from run to run; the CPU times much less.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

interface EventData {
  name?: string;
  file?: string;
  nesting?: number;
  todo?: boolean | string;
  message?: string;
  details?: { duration_ms?: number };
}

const SHOWN = Number(process.env.QUARRY_TEST_SLOWEST) || 15;
const files = process.argv.slice(2).map((file) => path.resolve(file));
const concurrency = Number(process.env.QUARRY_TEST_CONCURRENCY) || 2;
const timeout = Number(process.env.QUARRY_TEST_TIMEOUT) || Infinity;

const began = performance.now();
const started = new Map<string, number>();
const durations = new Map<string, number>();
const summary: string[] = [];
/** The repository path of a test file, which runs compiled under QUARRY_TEST_BUILD (scripts/test-build.ts). */
const build = process.env.QUARRY_TEST_BUILD;
/** The files of each process that runs several (scripts/test.ts), by its entry file. */
const groups: Record<string, string[]> = process.env.QUARRY_TEST_GROUPS ? JSON.parse(readFileSync(process.env.QUARRY_TEST_GROUPS, 'utf8')) : {};
const source = (file: string) => {
  const group = groups[file];
  if (group && group.length > 1) return `${group.length} files, ${group[0]} to ${group.at(-1)}`;
  return build ? path.relative(build, file).replace(/\.js$/, '.ts') : path.relative(process.cwd(), file);
};
const isFile = (data: EventData) => data.nesting === 0 && data.file !== undefined && data.name === data.file;

const stream = run({ files, concurrency, timeout });
stream.on('test:fail', (data: EventData) => {
  if (!data.todo) process.exitCode = 1;
});
stream.on('test:dequeue', (data: EventData) => {
  if (isFile(data) && !started.has(data.file!)) started.set(data.file!, performance.now() - began);
});
stream.on('test:complete', (data: EventData) => {
  if (isFile(data) && data.details?.duration_ms !== undefined) durations.set(data.file!, data.details.duration_ms);
});
stream.on('test:diagnostic', (data: EventData) => {
  if (data.nesting === 0 && data.file === undefined && data.message) summary.push(data.message);
});
stream.on('end', () => {
  const report = process.env.QUARRY_TEST_TIMINGS;
  if (!report) return;
  const rows = [...durations].sort((a, b) => b[1] - a[1]);
  const cpu = processCpu();
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);
  const cpuOf = (file: string) => (cpu.has(file) ? `${seconds(cpu.get(file)!)} CPU` : '            ');
  const lines = [
    '',
    `slowest test processes (${Math.min(SHOWN, rows.length)} of ${rows.length}): wall time of the process (one file or a group), its own CPU time, and when it started in the run`,
    ...rows.slice(0, SHOWN).map(([file, ms]) => {
      const start = started.get(file);
      return `${seconds(ms)}  ${cpuOf(file)}  ${source(file)}${start === undefined ? '' : `  (started at ${Math.round(start / 1000)} s)`}`;
    }),
    `${seconds(rows.reduce((sum, [, ms]) => sum + ms, 0))}  ${seconds(rows.reduce((sum, [file]) => sum + (cpu.get(file) ?? 0), 0))} CPU  all ${rows.length} processes together`,
    '',
    ...summary.map((message) => `ℹ ${message}`),
  ];
  writeFileSync(report, `${lines.join('\n')}\n`);
});
/** Each test process's CPU milliseconds, by its entry file (test/support/process-cpu.ts). */
function processCpu(): Map<string, number> {
  const file = process.env.QUARRY_TEST_CPU;
  const cpu = new Map<string, number>();
  if (!file || !existsSync(file)) return cpu;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [entry, seconds] = line.split('\t');
    if (entry && seconds) cpu.set(path.resolve(entry), (cpu.get(path.resolve(entry)) ?? 0) + Number(seconds) * 1000);
  }
  return cpu;
}

stream.compose(new spec()).pipe(process.stdout);
