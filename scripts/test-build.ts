/**
 * The JavaScript that `npm test` runs: src/, test/, scripts/ and client/ (the typed client, which its
 * tests call the server with) compiled once per run into a folder the run owns, so that each test
 * file's process loads plain JavaScript instead of compiling its TypeScript again through tsx's
 * loader (which costs every test process about a second of CPU).
 *
 * The folder mirrors the repository: each *.ts becomes a *.js next to where it was (its relative
 * `.ts` imports renamed to `.js`, an inline source map naming the original file, so that stack
 * traces point into the sources), every other file and every other top-level entry (node_modules,
 * package.json, bin, docs…) is a symbolic link to the original. Paths a test builds from
 * `import.meta.dirname` (migrations, fixtures, bin/quarry.js) therefore still lead to the real files.
 *
 * The compiler is esbuild (a dev dependency, the version tsx itself runs).
 * A file that does not compile becomes a module that throws its compile error, so that only the
 * test files importing it fail, as they would under tsx.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const COMPILED = ['src', 'test', 'scripts', 'client'];
const SKIPPED = new Set(['.git', ...COMPILED]);

/** Relative imports and exports of a `.ts` file, as esbuild prints them: `from "./x.ts"`, `import("./x.ts")`, `import "./x.ts"`. */
const RELATIVE_TS = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;

/** Compiles the repository at `root` into `out` (which must not exist yet); returns the number of compiled files. */
export async function buildTests(root: string, out: string): Promise<number> {
  const tsconfigRaw = readFileSync(path.join(root, 'tsconfig.json'), 'utf8');
  mkdirSync(out, { recursive: true });
  for (const entry of readdirSync(root)) {
    if (!SKIPPED.has(entry)) symlinkSync(path.join(root, entry), path.join(out, entry));
  }
  const sources: string[] = [];
  for (const dir of COMPILED) {
    mkdirSync(path.join(out, dir));
    for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      const file = path.relative(root, path.join(entry.parentPath, entry.name));
      if (entry.isDirectory()) mkdirSync(path.join(out, file), { recursive: true });
      else if (file.endsWith('.ts')) sources.push(file);
    }
    // Directories first (the listing gives no order), then the links to every other file.
    for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      const file = path.relative(root, path.join(entry.parentPath, entry.name));
      if (!entry.isDirectory() && !file.endsWith('.ts')) symlinkSync(path.join(root, file), path.join(out, file));
    }
  }
  await Promise.all(
    sources.map(async (file) => {
      const original = path.join(root, file);
      const target = path.join(out, file.replace(/\.ts$/, '.js'));
      let code: string;
      try {
        const result = await esbuild.transform(readFileSync(original, 'utf8'), {
          loader: 'ts',
          format: 'esm',
          platform: 'node',
          target: `node${process.versions.node.split('.')[0]}`,
          sourcemap: 'inline',
          sourcefile: original,
          tsconfigRaw,
        });
        code = result.code.replace(RELATIVE_TS, (_match, keyword: string, quote: string, specifier: string) => `${keyword}${quote}${specifier}.js${quote}`);
      } catch (error) {
        code = `throw new SyntaxError(${JSON.stringify(`${file} does not compile: ${(error as Error).message}`)});\n`;
      }
      writeFileSync(target, code);
    }),
  );
  return sources.length;
}
