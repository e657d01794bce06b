/**
 * How a test starts the real `quarry` command in a child process. Under `npm test` it runs the
 * run's compiled JavaScript (scripts/test-build.ts), the same code bin/quarry.js would run from its
 * cache of compiled sources (bin/compiled-sources.js) without hashing the sources at every start;
 * elsewhere bin/quarry.js. Either way with the node flags bin/quarry.js's first line gives.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'bin/quarry.js');

/** The node flags of bin/quarry.js's `#!/usr/bin/env -S node …` line. */
function binFlags(): string[] {
  const shebang = readFileSync(bin, 'utf8').split('\n', 1)[0]!;
  return shebang.replace(/^#!.*?\bnode\b/, '').trim().split(/\s+/).filter(Boolean);
}

/** node's arguments to run `quarry …args`. */
export function quarryArgs(args: string[]): string[] {
  const build = process.env.QUARRY_TEST_BUILD;
  const entry = build ? path.join(build, 'src/cli/main.js') : bin;
  return [...binFlags(), ...(build ? ['--enable-source-maps'] : []), entry, ...args];
}
