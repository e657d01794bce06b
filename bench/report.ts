/**
 * Results: the figures of a run as JSON and as Markdown under bench/results/ (the latest run of each
 * tier and store, or of the demo and Anvil alone) and a line per scope in history.jsonl, with what
 * follows from them: targets, growth from S to M, changes since earlier runs. Each Markdown section
 * is a module of bench/report/.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { RESULTS_DIR } from './proc.ts';
import { renderApi } from './report/api.ts';
import { renderBuild, renderData } from './report/build.ts';
import { compare, renderComparison, type Comparison } from './report/comparison.ts';
import { renderAnvil, renderDemo } from './report/demo.ts';
import { renderPowMainnet, renderPowNode } from './report/pow-node.ts';
import { renderSoak } from './report/soak.ts';
import { growthRows, renderGrowth, type GrowthRow } from './report/growth.ts';
import { renderErrors, renderHeader } from './report/header.ts';
import { appendHistory, historyLines, readHistory, type HistoryLine } from './report/history.ts';
import { renderIngest } from './report/ingest.ts';
import { Markdown } from './report/markdown.ts';
import { renderTargets, targetRows, type TargetRow } from './report/targets.ts';
import type { BenchResults } from './results.ts';

export interface Derived {
  targets: TargetRow[];
  growth: GrowthRow[];
  comparison: Comparison;
}

/**
 * The name of a run's files: the tiers and stores it measured (`S_postgres`, `SM_postgres`), else
 * `demo`, `anvil` or `demo-anvil`; a run replaces the files of the last run that measured the same.
 */
export function resultsName(r: BenchResults): string {
  const tiers = [...new Set(r.tiers.map((t) => t.tier))].join('');
  const stores = [...new Set(r.tiers.map((t) => t.store))].join('-');
  if (tiers) return `${tiers}_${stores}`;
  return [r.demo ? 'demo' : '', r.anvil ? 'anvil' : '', r.powNode ? 'pow-node' : '', r.powMainnet ? 'pow-mainnet' : '', r.powArchive ? 'pow-archive' : '', r.soak ? 'soak' : ''].filter(Boolean).join('-') || 'nothing-measured';
}

export function writeResults(results: BenchResults): { json: string; markdown: string } {
  const lines = historyLines(results);
  const derived = derive(results, lines, readHistory());
  mkdirSync(RESULTS_DIR, { recursive: true });
  const name = resultsName(results);
  const json = path.join(RESULTS_DIR, `${name}.json`);
  const markdown = path.join(RESULTS_DIR, `${name}.md`);
  writeFileSync(json, JSON.stringify({ ...results, derived }, null, 2) + '\n');
  writeFileSync(markdown, renderMarkdown(results, derived));
  appendHistory(lines);
  return { json, markdown };
}

/**
 * Writes the Markdown of a results file again with the current report code (the figures are
 * not touched; targets, growth and the comparison are derived again, against the history before it).
 */
export function renderAgain(jsonFile: string): string {
  const results = JSON.parse(readFileSync(jsonFile, 'utf8')) as BenchResults & { derived?: Derived };
  delete results.derived;
  const earlier = readHistory().filter((l) => l.startedAt < results.startedAt);
  const derived = derive(results, historyLines(results), earlier);
  const markdown = jsonFile.replace(/\.json$/, '.md');
  writeFileSync(jsonFile, JSON.stringify({ ...results, derived }, null, 2) + '\n');
  writeFileSync(markdown, renderMarkdown(results, derived));
  return markdown;
}

/** `lines` are the run's own history lines, `earlier` those of the runs before it. */
function derive(results: BenchResults, lines: HistoryLine[], earlier: HistoryLine[]): Derived {
  return { targets: targetRows(results), growth: [...growthRows(lines, earlier, 'M'), ...growthRows(lines, earlier, 'H')], comparison: compare(lines, earlier) };
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
  renderPowNode(md, r);
  renderPowMainnet(md, r);
  renderSoak(md, r);
  renderComparison(md, r, d.comparison);
  renderErrors(md, r);
  return md.text();
}
