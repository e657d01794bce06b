/**
 * How latency grows from S, per case: to M (the same history, denser: more data behind an address) and
 * to H (five years of history at a low density: analytics must not grow with history).
 */
import { describe } from './comparison.ts';
import type { HistoryLine } from './history.ts';
import { ratio, type Markdown } from './markdown.ts';

/** Latency must not grow with history: p50 on H within this many times S (issues 14, 15, 16). */
const GROWTH_LIMIT = 1.5;

export interface GrowthRow {
  /** The tier compared with S (rows of older results have none: M). */
  to?: 'M' | 'H';
  id: string;
  store: string;
  p50S: number;
  p50M: number;
  /** M/S of p50 with one connection (service time). */
  p50Ratio: number;
  p99S: number;
  p99M: number;
  /** M/S of p99 under load. */
  p99Ratio: number;
  /** The same p50 with every answer computed anew, where both runs measured it. */
  computed?: { p50S: number; p50M: number; ratio: number };
  /** The p50 as a browser asks (compressed), where both runs measured it. */
  compressed?: { p50S: number; p50M: number; ratio: number };
  source: string;
}

/** S against `to` on each store where this run measured one of them, the other from this run or the latest earlier one. */
export function growthRows(current: HistoryLine[], earlier: HistoryLine[], to: 'M' | 'H'): GrowthRow[] {
  const newestFirst = [...earlier].sort((a, b) => b.startedAt.localeCompare(a.startedAt));
  const rows: GrowthRow[] = [];
  for (const store of ['postgres', 'pglite']) {
    const find = (tier: string): { line: HistoryLine; source: string } | null => {
      const measured = (l: HistoryLine) => l.scope === `${tier} ${store}` && Object.keys(l.cases).length > 0;
      const here = current.find(measured);
      if (here) return { line: here, source: 'this run' };
      const there = newestFirst.find(measured);
      return there ? { line: there, source: describe(there) } : null;
    };
    const s = find('S');
    const m = find(to);
    if (!s || !m || (s.source !== 'this run' && m.source !== 'this run')) continue;
    for (const [id, [p50M, p99M, computedM, compressedM]] of Object.entries(m.line.cases)) {
      const sCase = s.line.cases[id];
      if (!sCase) continue;
      const [p50S, p99S, computedS, compressedS] = sCase;
      rows.push({
        to,
        id,
        store,
        p50S,
        p50M,
        p50Ratio: ratio(p50M, p50S),
        p99S,
        p99M,
        p99Ratio: ratio(p99M, p99S),
        ...(computedS !== undefined && computedM !== undefined ? { computed: { p50S: computedS, p50M: computedM, ratio: ratio(computedM, computedS) } } : {}),
        ...(compressedS !== undefined && compressedM !== undefined ? { compressed: { p50S: compressedS, p50M: compressedM, ratio: ratio(compressedM, compressedS) } } : {}),
        source: s.source === 'this run' && m.source === 'this run' ? 'this run' : `S: ${s.source}, M: ${m.source}`,
      });
    }
  }
  return rows;
}

export function renderGrowth(md: Markdown, growth: GrowthRow[]): void {
  for (const to of ['M', 'H'] as const) {
    const rows = growth.filter((g) => (g.to ?? 'M') === to);
    if (rows.length === 0) continue;
    md.line(to === 'M' ? '## Growth from S to M' : '## Growth from S to H (five years of history)');
    md.line();
    md.line(
      `${to}/S of p50 with one connection (service time), of the same p50 with every answer computed anew, of the p50 as a browser asks (compressed), ` +
        'and of p99 under load, per case.',
    );
    md.line();
    if (to === 'H') {
      const within = (pick: (g: GrowthRow) => number | undefined) => {
        const measured = rows.filter((g) => pick(g) !== undefined);
        return `${measured.filter((g) => pick(g)! <= GROWTH_LIMIT).length}/${measured.length}`;
      };
      md.line(
        `Cases whose p50 on H is within ${GROWTH_LIMIT}× of S (the issues' rule for history): ${within((g) => g.p50Ratio)} plain, ` +
          `${within((g) => g.compressed?.ratio)} compressed, ${within((g) => g.computed?.ratio)} computed anew.`,
      );
      md.line();
    }
    md.table(
      ['case', 'store', `p50 S → ${to} ms`, `${to}/S p50`, `computed p50 S → ${to} ms`, `${to}/S computed`, `compressed p50 S → ${to} ms`, `${to}/S compressed`, `p99 S → ${to} ms`, `${to}/S p99`, 'from'],
      rows.map((g) => [
        g.id, g.store, `${g.p50S} → ${g.p50M}`, g.p50Ratio, g.computed ? `${g.computed.p50S} → ${g.computed.p50M}` : '', g.computed?.ratio ?? '',
        g.compressed ? `${g.compressed.p50S} → ${g.compressed.p50M}` : '', g.compressed?.ratio ?? '',
        `${g.p99S} → ${g.p99M}`, g.p99Ratio, g.source,
      ]),
    );
  }
}
