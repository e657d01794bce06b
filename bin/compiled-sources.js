/**
 * The repository's TypeScript compiled to plain JavaScript before it runs, cached by the sources'
 * content. bin/quarry.js runs every command from it (the API workers of `quarry serve` included),
 * and `npm test` runs its files from a tree of its own. Loading the sources through tsx's loader
 * instead would cost each process a loader thread and the transpiled sources it keeps, about 70 MB
 * of resident memory per API worker (docs/deploy.md), and a compile of every file at every start.
 *
 * A compiled tree mirrors the repository: each *.ts of the compiled folders becomes a *.js next to
 * where it was (its relative `.ts` imports renamed to `.js`, an inline source map naming the
 * original file, so that stack traces point into the sources), every other file and every other
 * top-level entry (node_modules, package.json, docs…) is a symbolic link to the original. Paths a
 * module builds from `import.meta.dirname` (migrations, assets, the QRL proto) therefore still lead
 * to the real files. The compiler is esbuild, the one tsx itself runs. A file that does not compile
 * becomes a module that throws its compile error, so that only what imports it fails, as under tsx.
 *
 * Plain JavaScript (typed by compiled-sources.d.ts) because it runs before any TypeScript can.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Relative imports and exports of a `.ts` file, as esbuild prints them: `from "./x.ts"`, `import("./x.ts")`, `import "./x.ts"`. */
const RELATIVE_TS = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;

/** The repository this file belongs to. */
const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..');

/** How many compiled trees the cache keeps (the ones used last), so that a server started from an older tree can still restart a worker. */
const KEPT_TREES = 5;
/** A build left behind by a process that died while building is removed after this long. */
const ABANDONED_BUILD_MS = 3_600_000;

const nodeMajor = () => process.versions.node.split('.')[0];

/** The compiler's version, read without loading the compiler: a start that finds its tree cached never needs it. */
const esbuildVersion = () => createRequire(import.meta.url)('esbuild/package.json').version;

/**
 * Every folder and file under `folder` (relative to `root`), folders first where they nest, leaving
 * out hidden folders and what is in them (bench/.work holds the benchmark's databases, not sources).
 */
function treeOf(root, folder) {
  const dirs = [];
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (!entry.isDirectory()) files.push(relative);
      else if (!entry.name.startsWith('.')) {
        dirs.push(relative);
        walk(relative);
      }
    }
  };
  walk(folder);
  return { dirs, files };
}

/** The TypeScript files of `options.folders` under `root`, relative to it, sorted. */
function typeScriptFiles(root, options) {
  const files = [];
  for (const folder of options.folders) {
    for (const file of treeOf(root, folder).files) if (file.endsWith('.ts') && !options.skip?.(file)) files.push(file);
  }
  return files.sort();
}

/** Compiles the repository at `root` into `out` (which must not exist yet); resolves with the number of compiled files. */
export async function compileTree(root, out, options) {
  const tsconfigRaw = readFileSync(path.join(root, 'tsconfig.json'), 'utf8');
  const compiled = new Set(options.folders);
  mkdirSync(out, { recursive: true });
  for (const entry of readdirSync(root)) {
    if (entry !== '.git' && !compiled.has(entry)) symlinkSync(path.join(root, entry), path.join(out, entry));
  }
  for (const folder of options.folders) {
    mkdirSync(path.join(out, folder));
    const { dirs, files } = treeOf(root, folder);
    // Folders first, then the links to every file that is not TypeScript.
    for (const dir of dirs) mkdirSync(path.join(out, dir), { recursive: true });
    for (const file of files) if (!file.endsWith('.ts')) symlinkSync(path.join(root, file), path.join(out, file));
  }
  const sources = typeScriptFiles(root, options);
  const esbuild = await import('esbuild');
  await Promise.all(
    sources.map(async (file) => {
      const original = path.join(root, file);
      let code;
      try {
        const result = await esbuild.transform(readFileSync(original, 'utf8'), {
          loader: 'ts',
          format: 'esm',
          platform: 'node',
          target: `node${nodeMajor()}`,
          sourcemap: 'inline',
          sourcefile: original,
          tsconfigRaw,
        });
        code = result.code.replace(RELATIVE_TS, (_match, keyword, quote, specifier) => `${keyword}${quote}${specifier}.js${quote}`);
      } catch (error) {
        code = `throw new SyntaxError(${JSON.stringify(`${file} does not compile: ${error.message}`)});\n`;
      }
      writeFileSync(path.join(out, file.replace(/\.ts$/, '.js')), code);
    }),
  );
  return sources.length;
}

/**
 * The compiled tree of `folders` (test files left out) for the sources as they are now, built once
 * into `<root>/node_modules/.cache/quarry/` under a hash of the sources, the compiler, node's
 * major version and the root, and reused while none changes. Several processes may ask at once: each builds
 * into a folder of its own and renames it into place; one that loses the race uses the winner's.
 * Resolves with undefined when the cache cannot be written (a read-only installation): the caller
 * then runs the sources through tsx.
 */
export async function cachedCompiledTree(folders, root = REPOSITORY_ROOT) {
  const options = { folders, skip: (file) => file.endsWith('.test.ts') };
  // The root is part of the key: a tree's links lead into the checkout it was built from, and two
  // checkouts may share node_modules (a git worktree linking the main one's).
  const hash = createHash('sha256').update(`${esbuildVersion()} node${nodeMajor()} ${root}\n`).update(readFileSync(path.join(root, 'tsconfig.json')));
  for (const file of typeScriptFiles(root, options)) hash.update(`\0${file}\0`).update(readFileSync(path.join(root, file)));
  const cache = path.join(root, 'node_modules', '.cache', 'quarry');
  const tree = path.join(cache, `compiled-${folders.join('-')}-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(tree)) {
    // Marked as used, so that pruning keeps the trees in use rather than the ones built last (a
    // read-only cache that already holds the tree is used as it is).
    try {
      utimesSync(tree, new Date(), new Date());
    } catch {
      // Not writable: nothing to prune here either.
    }
    return tree;
  }
  try {
    const building = `${tree}.${process.pid}.building`;
    mkdirSync(cache, { recursive: true });
    rmSync(building, { recursive: true, force: true });
    try {
      await compileTree(root, building, options);
      renameSync(building, tree);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(tree)) throw error;
    }
    pruneUnusedTrees(cache, tree);
    return tree;
  } catch {
    return undefined;
  }
}

function pruneUnusedTrees(cache, current) {
  const entries = readdirSync(cache)
    .filter((name) => name.startsWith('compiled-'))
    .map((name) => ({ name, dir: path.join(cache, name), usedAt: statSync(path.join(cache, name)).mtimeMs }));
  const trees = entries.filter((e) => !e.name.endsWith('.building') && e.dir !== current).sort((a, b) => b.usedAt - a.usedAt);
  const abandoned = entries.filter((e) => e.name.endsWith('.building') && Date.now() - e.usedAt > ABANDONED_BUILD_MS);
  for (const entry of [...trees.slice(KEPT_TREES - 1), ...abandoned]) rmSync(entry.dir, { recursive: true, force: true });
}
