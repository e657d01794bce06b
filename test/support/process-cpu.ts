/**
 * Each test process's own CPU time (user + system, its PGlite included, the servers and commands it
 * starts not), for the timing report at the end of `npm test`: `npm test` loads this module into
 * every test process (`--import`, scripts/test.ts), which appends `entry<TAB>seconds` to
 * QUARRY_TEST_CPU as it exits (scripts/test-runner.ts reads the file).
 */
import { appendFileSync } from 'node:fs';

const report = process.env.QUARRY_TEST_CPU;
const entry = process.argv[1];
if (report && entry) {
  process.on('exit', () => {
    const { user, system } = process.cpuUsage();
    // One short line per process: appends this small land whole even with other processes appending.
    appendFileSync(report, `${entry}\t${((user + system) / 1e6).toFixed(2)}\n`);
  });
}
