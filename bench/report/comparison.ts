/** Each headline figure and each case's p99 under load against its last measurement in the history. */
import type { BenchResults } from '../results.ts';
import type { HistoryLine } from './history.ts';
import { fmt, signedPct, type Markdown } from './markdown.ts';

export interface Change {
  what: string;
  previous: number;
  current: number;
  /** current / previous − 1. */
  change: number;
  /** The earlier run the previous value is from. */
  since: string;
}

export type Comparison = { figures: Change[]; cases: Change[] } | null;

/** `earlier` holds the history lines before this run; `current` the lines this run adds. */
export function compare(current: HistoryLine[], earlier: HistoryLine[]): Comparison {
  const newestFirst = [...earlier].sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  const figures: Change[] = [];
  const cases: Change[] = [];
  const add = (list: Change[], what: string, before: HistoryLine, previous: number, now: number) => {
    if (previous === 0) return;
    list.push({ what, previous, current: now, change: Math.round((now / previous - 1) * 1000) / 1000, since: describe(before) });
  };
  for (const line of current) {
    const sameScope = newestFirst.filter((l) => l.scope === line.scope);
    for (const [figure, now] of Object.entries(line.figures)) {
      const before = sameScope.find((l) => figure in l.figures);
      if (before) add(figures, `${line.scope}: ${figure}`, before, before.figures[figure]!, now);
    }
    const before = sameScope.find((l) => Object.keys(l.cases).length > 0);
    for (const [id, [, now]] of Object.entries(line.cases)) {
      const previous = before?.cases[id];
      if (previous) add(cases, `${line.scope}: ${id} p99`, before!, previous[1], now);
    }
  }
  if (figures.length === 0 && cases.length === 0) return null;
  cases.sort((a, b) => Math.abs(b.change) - Math.abs(a.change));
  return { figures, cases };
}

export function describe(line: HistoryLine): string {
  return `${line.startedAt.slice(0, 16).replace('T', ' ')} (${line.commit}${line.dirty ? '+' : ''}, load ${line.loadAverage[0]})`;
}

export function renderComparison(md: Markdown, r: BenchResults, c: Comparison): void {
  if (!c) return;
  md.line('## Compared with earlier runs');
  md.line();
  md.line(`Each figure against its last measurement in the same scope, a tier on a store, the demo or Anvil (bench/results/history.jsonl; \`+\` marks uncommitted changes, load is the 1-minute average at the start). This run started at load average ${r.machine.loadAverage.start.join(' / ')}.`);
  md.line();
  if (c.figures.length > 0) md.table(['figure', 'previous', 'now', 'change', 'previous run'], c.figures.map((x) => [x.what, fmt(x.previous), fmt(x.current), signedPct(x.change), x.since]));
  const notable = c.cases.filter((x) => Math.abs(x.change) >= 0.2).slice(0, 20);
  const since = [...new Set(c.cases.map((x) => x.since))].join(', ');
  if (notable.length > 0) {
    md.line(`Cases whose p99 under load moved by 20 % or more (${notable.length} shown of ${c.cases.length} compared with ${since}):`);
    md.line();
    md.table(['case', 'previous ms', 'now ms', 'change'], notable.map((x) => [x.what, x.previous, x.current, signedPct(x.change)]));
  } else if (c.cases.length > 0) {
    md.line(`No case's p99 under load moved by 20 % or more (${c.cases.length} compared with ${since}).`);
    md.line();
  }
}
