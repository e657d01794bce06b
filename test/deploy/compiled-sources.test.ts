import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { cachedCompiledTree } from '../../bin/compiled-sources.js';

/** A repository of three modules: a.ts imports b.ts and reads a file next to it; a.test.ts must be left out. */
function writeRepository(root: string, bValue: string): void {
  mkdirSync(path.join(root, 'src', 'sub'), { recursive: true });
  mkdirSync(path.join(root, 'node_modules'), { recursive: true });
  writeFileSync(path.join(root, 'tsconfig.json'), '{"compilerOptions":{"verbatimModuleSyntax":true}}');
  writeFileSync(path.join(root, 'package.json'), '{"type":"module"}');
  writeFileSync(
    path.join(root, 'src', 'a.ts'),
    [
      "import { readFileSync } from 'node:fs';",
      "import { b, type Shape } from './sub/b.ts';",
      'const shape: Shape = { value: b };',
      "export const answer: string = `${shape.value}:${readFileSync(new URL('./data.txt', import.meta.url), 'utf8')}`;",
    ].join('\n'),
  );
  writeFileSync(path.join(root, 'src', 'sub', 'b.ts'), `export interface Shape { value: string }\nexport const b: string = ${JSON.stringify(bValue)};\n`);
  writeFileSync(path.join(root, 'src', 'data.txt'), 'beside');
  writeFileSync(path.join(root, 'src', 'a.test.ts'), "throw new Error('a test file must not be compiled into a tree');\n");
}

async function answerOf(tree: string): Promise<string> {
  const url = `${pathToFileURL(path.join(tree, 'src', 'a.js')).href}?at=${Date.now()}-${Math.random()}`;
  return ((await import(url)) as { answer: string }).answer;
}

describe('bin/compiled-sources.js: the sources compiled once into a cache', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'quarry-compiled-'));
    writeRepository(root, 'first');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('compiles the TypeScript into a tree that runs without tsx, links every other file and leaves test files out', async () => {
    const tree = await cachedCompiledTree(['src'], root);
    assert.ok(tree !== undefined);
    assert.equal(path.dirname(tree), path.join(root, 'node_modules', '.cache', 'quarry'));
    assert.equal(await answerOf(tree), 'first:beside');
    assert.match(readFileSync(path.join(tree, 'src', 'a.js'), 'utf8'), /from "\.\/sub\/b\.js"/);
    assert.ok(lstatSync(path.join(tree, 'src', 'data.txt')).isSymbolicLink());
    assert.ok(lstatSync(path.join(tree, 'package.json')).isSymbolicLink());
    assert.equal(existsSync(path.join(tree, 'src', 'a.test.js')), false);
  });

  it('reuses the tree while the sources are unchanged, and builds another when one changes', async () => {
    const first = await cachedCompiledTree(['src'], root);
    const compiledAt = statSync(path.join(first!, 'src', 'a.js')).mtimeMs;
    assert.equal(await cachedCompiledTree(['src'], root), first);
    assert.equal(statSync(path.join(first!, 'src', 'a.js')).mtimeMs, compiledAt);

    writeFileSync(path.join(root, 'src', 'sub', 'b.ts'), 'export interface Shape { value: string }\nexport const b: string = "second";\n');
    const second = await cachedCompiledTree(['src'], root);
    assert.notEqual(second, first);
    assert.equal(await answerOf(second!), 'second:beside');
    // A test file's change alone is not a new version of the sources.
    writeFileSync(path.join(root, 'src', 'a.test.ts'), '// changed\n');
    assert.equal(await cachedCompiledTree(['src'], root), second);
  });

  it('processes asking at once get one tree, and no unfinished build is left behind', async () => {
    writeFileSync(path.join(root, 'src', 'sub', 'b.ts'), 'export interface Shape { value: string }\nexport const b: string = "third";\n');
    const trees = await Promise.all([1, 2, 3, 4].map(() => cachedCompiledTree(['src'], root)));
    assert.equal(new Set(trees).size, 1);
    assert.equal(await answerOf(trees[0]!), 'third:beside');
    const cache = path.join(root, 'node_modules', '.cache', 'quarry');
    assert.deepEqual(readdirSync(cache).filter((name) => name.endsWith('.building')), []);
  });

  it('answers undefined (run the TypeScript instead) when the cache cannot be written', async () => {
    const readOnly = mkdtempSync(path.join(tmpdir(), 'quarry-compiled-ro-'));
    try {
      writeRepository(readOnly, 'read-only');
      // node_modules is a file: no cache folder can be made under it, whoever runs the test.
      rmSync(path.join(readOnly, 'node_modules'), { recursive: true });
      writeFileSync(path.join(readOnly, 'node_modules'), '');
      chmodSync(path.join(readOnly, 'node_modules'), 0o444);
      assert.equal(await cachedCompiledTree(['src'], readOnly), undefined);
    } finally {
      rmSync(readOnly, { recursive: true, force: true });
    }
  });
});
