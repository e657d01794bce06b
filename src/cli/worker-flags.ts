/**
 * The node flags an API worker runs with. bin/quarry.js starts every command with a 64 MB young
 * generation, which pays for itself in bulk loads (millions of short-lived strings) but not in a
 * server whose requests each allocate little: there it only raises the resident set of every
 * worker. The workers of `quarry serve --workers N` (and of the benchmark's API server, which runs
 * as `serve` does) drop it and keep V8's default.
 */
const BULK_ONLY_FLAGS = ['--max-semi-space-size'];

export function apiWorkerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  return execArgv.filter((flag) => !BULK_ONLY_FLAGS.some((name) => flag === name || flag.startsWith(`${name}=`)));
}
