/**
 * The layers inside src/rollups read one way, lowest first: shared/ (what the engine's contract
 * and the rollups share), engine/ (handed its rollups and charts: it imports none), the rollups and
 * charts, registry.ts (lists them and builds the engine's set), index.ts (the engine bound to it).
 * A file imports from its own layer and those below; no files import each other in a circle, type
 * imports included. Fails with the offending imports and circles; `--graph` also prints every
 * import inside src/rollups. Runs in `npm run lint`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const rollups = join(root, 'src/rollups');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const name = (path: string) => relative(rollups, path);
const files = sources(rollups);
const known = new Set(files);

/** Every import and re-export of a file (static, dynamic and type-only) that lands inside src/rollups. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => resolve(dirname(file), spec))
    .filter((target) => known.has(target));
}

const graph = new Map(files.map((file) => [name(file), importsOf(file).map(name)]));
const edges = [...graph].reduce((sum, [, targets]) => sum + targets.length, 0);

const LAYERS = ['shared/', 'engine/', 'rollups and charts', 'registry.ts', 'index.ts'];
const layerOf = (path: string) => {
  const own = LAYERS.findIndex((layer) => path === layer || path.startsWith(layer));
  return own === -1 ? LAYERS.indexOf('rollups and charts') : own;
};
const upward = [...graph].flatMap(([from, targets]) => targets.filter((to) => layerOf(to) > layerOf(from)).map((to) => `${from} -> ${to}`));

/** Strongly connected components (Tarjan): every one of more than one file, or a file importing itself, is a circle. */
function circles(): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)!.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const found = circles();
if (process.argv.includes('--graph')) {
  for (const [from, targets] of [...graph].sort()) for (const to of targets) console.log(`${from} -> ${to}`);
}
console.log(`src/rollups: ${graph.size} files, ${edges} imports, ${upward.length} up a layer, ${found.length} circles (${found.reduce((n, c) => n + c.length, 0)} files)`);
for (const line of upward) console.error(`import up a layer (${LAYERS.join(' < ')}): ${line}`);
for (const circle of found) console.error(`circle of ${circle.length}: ${circle.join(', ')}`);
if (upward.length > 0 || found.length > 0) process.exitCode = 1;
