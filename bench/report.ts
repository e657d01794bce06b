/**
 * Results: the figures of a run as JSON and as Markdown under bench/results/, with what follows
 * from them (targets, growth from S to M, changes since the previous results file). Each report
 * section is a module of bench/report/.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RESULTS_DIR } from './proc.ts';
import { renderApi } from './report/api.ts';
import { renderBuild, renderData } from './report/build.ts';
import { comparable, compare, renderComparison, type Comparison } from './report/comparison.ts';
import { renderAnvil, renderDemo } from './report/demo.ts';
import { growthRows, renderGrowth, type GrowthRow } from './report/growth.ts';
import { renderErrors, renderHeader } from './report/header.ts';
import { renderIngest } from './report/ingest.ts';
import { Markdown } from './report/markdown.ts';
import { renderTargets, targetRows, type TargetRow } from './report/targets.ts';
import type { BenchResults, ResultsFile } from './results.ts';

export interface Derived {
  targets: TargetRow[];
  growth: GrowthRow[];
  comparison: Comparison;
}

/** Results files, newest first (by name, which starts with the time of the run). */
export function previousResults(): ResultsFile[] {
  let files: string[] = [];
  try {
    files = readdirSync(RESULTS_DIR).filter((f) => f.endsWith('.json')).sort().reverse();
  } catch {
    return [];
  }
  const out: ResultsFile[] = [];
  for (const file of files) {
    try {
      const results = JSON.parse(readFileSync(path.join(RESULTS_DIR, file), 'utf8')) as BenchResults;
      if (results.format === 1) out.push({ file, results });
    } catch {
      // not a results file
    }
  }
  return out;
}

export function writeResults(results: BenchResults): { json: string; markdown: string } {
  const previous = previousResults();
  const derived: Derived = { targets: targetRows(results), growth: growthRows(results, previous), comparison: compare(results, comparable(results, previous)) };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = results.startedAt.replace(/:\d\d\.\d+Z$/, '').replace(/[:T]/g, '-');
  const name = `${stamp}_${results.options.tiers.join('')}_${results.options.stores.join('-')}`;
  const json = path.join(RESULTS_DIR, `${name}.json`);
  const markdown = path.join(RESULTS_DIR, `${name}.md`);
  writeFileSync(json, JSON.stringify({ ...results, derived }, null, 2) + '\n');
  writeFileSync(markdown, renderMarkdown(results, derived));
  return { json, markdown };
}

/**
 * Writes the Markdown of a results file again with the current report code (the figures are
 * not touched; targets, growth and the comparison are derived again, against the files before it).
 */
export function renderAgain(jsonFile: string): string {
  const results = JSON.parse(readFileSync(jsonFile, 'utf8')) as BenchResults & { derived?: Derived };
  delete results.derived;
  const name = path.basename(jsonFile);
  const previous = previousResults().filter((p) => p.file < name);
  const derived: Derived = { targets: targetRows(results), growth: growthRows(results, previous), comparison: compare(results, comparable(results, previous)) };
  const markdown = jsonFile.replace(/\.json$/, '.md');
  writeFileSync(jsonFile, JSON.stringify({ ...results, derived }, null, 2) + '\n');
  writeFileSync(markdown, renderMarkdown(results, derived));
  return markdown;
}

function renderMarkdown(r: BenchResults, d: Derived): string {
  const md = new Markdown();
  renderHeader(md, r);
  renderTargets(md, d.targets);
  renderData(md, r);
  renderBuild(md, r);
  renderIngest(md, r);
  for (const t of r.tiers) renderApi(md, t);
  renderGrowth(md, d.growth);
  renderDemo(md, r);
  renderAnvil(md, r);
  renderComparison(md, r, d.comparison);
  renderErrors(md, r);
  return md.text();
}
