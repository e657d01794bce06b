/**
 * The layers inside src/rollups read one way: the engine (engine/) imports no rollup, chart or the
 * registry (it is handed them: registry.ts builds the set), and no files import each other in a
 * circle, type imports included. Fails with the offending imports and circles; `--graph` also
 * prints every import inside src/rollups. Runs in `npm run lint`.
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

const inEngine = (path: string) => path.startsWith('engine/');
const upward = [...graph].flatMap(([from, targets]) => (inEngine(from) ? targets.filter((to) => !inEngine(to)).map((to) => `${from} -> ${to}`) : []));

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
console.log(`src/rollups: ${graph.size} files, ${edges} imports, ${upward.length} from the engine up, ${found.length} circles (${found.reduce((n, c) => n + c.length, 0)} files)`);
for (const line of upward) console.error(`engine imports above it: ${line}`);
for (const circle of found) console.error(`circle of ${circle.length}: ${circle.join(', ')}`);
if (upward.length > 0 || found.length > 0) process.exitCode = 1;
