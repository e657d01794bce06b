/** How latency grows from S to M, per case: the same history, denser (more data behind an address). */
import type { BenchResults, ResultsFile, TierResult } from '../results.ts';
import { ratio, type Markdown } from './markdown.ts';

export interface GrowthRow {
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
  source: string;
}

export function growthRows(results: BenchResults, previous: ResultsFile[]): GrowthRow[] {
  const rows: GrowthRow[] = [];
  for (const store of ['postgres', 'pglite']) {
    const find = (tier: string): { api: TierResult['api']; source: string } | null => {
      const here = results.tiers.find((t) => t.tier === tier && t.store === store && t.api);
      if (here) return { api: here.api, source: 'this run' };
      for (const p of previous) {
        const there = p.results.tiers.find((t) => t.tier === tier && t.store === store && t.api);
        if (there) return { api: there.api, source: p.file };
      }
      return null;
    };
    const s = find('S');
    const m = find('M');
    if (!s || !m || (s.source !== 'this run' && m.source !== 'this run')) continue;
    const byId = new Map(s.api!.cases.filter((c) => c.single && c.loaded).map((c) => [c.id, c]));
    for (const mc of m.api!.cases) {
      const sc = byId.get(mc.id);
      if (!sc || !mc.single || !mc.loaded) continue;
      rows.push({
        id: mc.id,
        store,
        p50S: sc.single!.p50,
        p50M: mc.single.p50,
        p50Ratio: ratio(mc.single.p50, sc.single!.p50),
        p99S: sc.loaded!.p99,
        p99M: mc.loaded.p99,
        p99Ratio: ratio(mc.loaded.p99, sc.loaded!.p99),
        source: s.source === 'this run' && m.source === 'this run' ? 'this run' : `S: ${s.source}, M: ${m.source}`,
      });
    }
  }
  return rows;
}

export function renderGrowth(md: Markdown, growth: GrowthRow[]): void {
  if (growth.length === 0) return;
  md.line('## Growth from S to M');
  md.line();
  md.line('M/S of p50 with one connection (service time) and of p99 under load, per case.');
  md.line();
  md.table(['case', 'store', 'p50 S → M ms', 'M/S p50', 'p99 S → M ms', 'M/S p99', 'from'], growth.map((g) => [g.id, g.store, `${g.p50S} → ${g.p50M}`, g.p50Ratio, `${g.p99S} → ${g.p99M}`, g.p99Ratio, g.source]));
}
