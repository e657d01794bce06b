/**
 * The JavaScript that `npm test` runs: src/, test/, scripts/, client/ (the typed client, which its
 * tests call the server with) and bench/ (the soak's checks, which a test judges samples with)
 * compiled once per run into a folder the run owns (bin/compiled-sources.js; hidden folders such as
 * bench/.work are left out), so that each test file's process loads plain JavaScript instead of
 * compiling its TypeScript again through tsx's loader (which costs every test process about a
 * second of CPU).
 */
import { compileTree } from '../bin/compiled-sources.js';

/** Compiles the repository at `root` into `out` (which must not exist yet); resolves with the number of compiled files. */
export function buildTests(root: string, out: string): Promise<number> {
  return compileTree(root, out, { folders: ['src', 'test', 'scripts', 'client', 'bench'] });
}
