/** The key figures and the cases' p99 under load against the previous results file. */
import type { BenchResults, ResultsFile } from '../results.ts';
import { fmt, signedPct, type Markdown } from './markdown.ts';

export interface Change {
  what: string;
  previous: number;
  current: number;
  /** current / previous − 1. */
  change: number;
}

export type Comparison = { file: string; loadAverage: number[]; figures: Change[]; cases: Change[] } | null;

/** The newest earlier results file that measured something this run measured (a tier on a store, the demo, Anvil). */
export function comparable(current: BenchResults, previous: ResultsFile[]): ResultsFile | undefined {
  return previous.find(
    (p) =>
      current.tiers.some((t) => p.results.tiers.some((x) => x.tier === t.tier && x.store === t.store)) ||
      (current.demo && p.results.demo) ||
      (current.anvil && p.results.anvil),
  );
}

export function compare(current: BenchResults, previous: ResultsFile | undefined): Comparison {
  if (!previous) return null;
  const figures: Change[] = [];
  const cases: Change[] = [];
  const add = (list: Change[], what: string, before: number | undefined, now: number | undefined) => {
    if (before === undefined || now === undefined || before === 0) return;
    list.push({ what, previous: before, current: now, change: Math.round((now / before - 1) * 1000) / 1000 });
  };
  for (const t of current.tiers) {
    const p = previous.results.tiers.find((x) => x.tier === t.tier && x.store === t.store);
    if (!p) continue;
    const scope = `${t.tier} ${t.store}`;
    if (t.built || p.built) add(figures, `${scope}: generated and stored tx/s`, p.build.txPerSecond.both, t.build.txPerSecond.both);
    add(figures, `${scope}: pipeline tx/s (batches)`, p.ingest?.txPerSecond, t.ingest?.txPerSecond);
    for (const chain of ['pow', 'pos'] as const) {
      add(figures, `${scope}: ${chain} ms per followed block`, p.ingest?.chains[chain].live.pipelineMsPerBlock.mean, t.ingest?.chains[chain].live.pipelineMsPerBlock.mean);
    }
    add(figures, `${scope}: COPY ceiling rows/s (server)`, p.copy?.server?.rowsPerSecond, t.copy?.server?.rowsPerSecond);
    add(figures, `${scope}: API peak RSS MB`, p.api?.server.peakRssMb ?? undefined, t.api?.server.peakRssMb ?? undefined);
    const before = new Map((p.api?.cases ?? []).map((c) => [c.id, c]));
    for (const c of t.api?.cases ?? []) {
      const b = before.get(c.id);
      if (!b?.loaded || !c.loaded) continue;
      add(cases, `${scope}: ${c.id} p99`, b.loaded.p99, c.loaded.p99);
    }
  }
  if (current.demo && previous.results.demo) {
    add(figures, 'demo: first start s', previous.results.demo.first.seconds, current.demo.first.seconds);
    add(figures, 'demo: second start s', previous.results.demo.second.seconds, current.demo.second.seconds);
  }
  if (current.anvil && previous.results.anvil) add(figures, 'anvil: backfill / serve rate', previous.results.anvil.ratio, current.anvil.ratio);
  cases.sort((a, b) => Math.abs(b.change) - Math.abs(a.change));
  return { file: previous.file, loadAverage: previous.results.machine.loadAverage.start, figures, cases };
}

export function renderComparison(md: Markdown, r: BenchResults, c: Comparison): void {
  if (!c) return;
  md.line(`## Compared with ${c.file}`);
  md.line();
  md.line(`That run started at load average ${c.loadAverage.join(' / ')}; this one at ${r.machine.loadAverage.start.join(' / ')}.`);
  md.line();
  if (c.figures.length > 0) md.table(['figure', 'previous', 'now', 'change'], c.figures.map((x) => [x.what, fmt(x.previous), fmt(x.current), signedPct(x.change)]));
  const notable = c.cases.filter((x) => Math.abs(x.change) >= 0.2).slice(0, 20);
  if (notable.length > 0) {
    md.line(`Cases whose p99 under load moved by 20 % or more (${notable.length} shown of ${c.cases.length} compared):`);
    md.line();
    md.table(['case', 'previous ms', 'now ms', 'change'], notable.map((x) => [x.what, x.previous, x.current, signedPct(x.change)]));
  } else if (c.cases.length > 0) {
    md.line(`No case's p99 under load moved by 20 % or more (${c.cases.length} compared).`);
    md.line();
  }
}
