/**
 * bench/results/history.jsonl: one line per run and scope (a tier on a store, the demo, Anvil) with
 * the run's headline figures and each API case's latency; the comparison and the growth read it.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RESULTS_DIR } from '../proc.ts';
import type { LoadResult } from '../load.ts';
import { worstP99 } from '../parts/api.ts';
import type { BenchResults } from '../results.ts';

export const HISTORY_FILE = path.join(RESULTS_DIR, 'history.jsonl');

export interface HistoryLine {
  startedAt: string;
  /** `S postgres`, `demo`, `anvil`, `pow-node` or `pow-mainnet BLOCKS` (the slice's size). */
  scope: string;
  commit: string;
  /** Uncommitted changes under src/ when the run started. */
  dirty: boolean;
  loadAverage: number[];
  figures: Record<string, number>;
  /**
   * Per API case id: p50 at one connection and p99 under load, ms; then p50 computed anew and p50
   * compressed. Older lines lack the last two (before answers were kept between blocks, and before
   * the compressed load).
   */
  cases: Record<string, CaseFigures>;
}

type CaseFigures = [p50Single: number, p99Loaded: number, p50Computed?: number, p50Compressed?: number];

/** A case's line figures (the benchmark measures the computed load before the compressed one). */
function caseFigures(single: LoadResult, loaded: LoadResult, computed?: LoadResult, compressed?: LoadResult): CaseFigures {
  if (!computed) return [single.p50, loaded.p99];
  return compressed ? [single.p50, loaded.p99, computed.p50, compressed.p50] : [single.p50, loaded.p99, computed.p50];
}

/** The lines a run adds: only what it measured (a reused build is not measured again). */
export function historyLines(r: BenchResults): HistoryLine[] {
  const line = (scope: string, figures: Record<string, number | null | undefined>, cases: HistoryLine['cases'] = {}): HistoryLine => ({
    startedAt: r.startedAt,
    scope,
    commit: r.git.commit.slice(0, 10),
    dirty: r.git.dirty,
    loadAverage: r.machine.loadAverage.start,
    figures: Object.fromEntries(Object.entries(figures).filter((entry): entry is [string, number] => typeof entry[1] === 'number')),
    cases,
  });
  const lines: HistoryLine[] = [];
  for (const t of r.tiers) {
    const judged = (t.api?.cases ?? []).filter((c) => c.target && c.status === 'measured' && c.single);
    const worst = judged.length > 0 ? Math.max(...judged.map(worstP99)) : undefined;
    lines.push(
      line(
        `${t.tier} ${t.store}`,
        {
          'generated and stored tx/s': t.built ? t.build.txPerSecond.both : undefined,
          'pipeline tx/s (batches)': t.ingest?.txPerSecond,
          'pow ms per followed block': t.ingest?.chains.pow.live.pipelineMsPerBlock.mean,
          'pos ms per followed block': t.ingest?.chains.pos.live.pipelineMsPerBlock.mean,
          'COPY ceiling rows/s (server)': t.copy?.server?.rowsPerSecond,
          'API cases within target (1 conn)': t.api ? judged.filter((c) => worstP99(c) <= c.target!.ms).length : undefined,
          'API worst p99 ms (1 conn)': worst,
          'API peak RSS MB': t.api?.server.peakRssMb,
        },
        Object.fromEntries((t.api?.cases ?? []).flatMap((c) => (c.single && c.loaded ? [[c.id, caseFigures(c.single, c.loaded, c.computed, c.compressed)]] : []))),
      ),
    );
  }
  if (r.demo) {
    lines.push(line('demo', { 'first start s': r.demo.first.seconds, 'second start s': r.demo.second.seconds, 'first start peak RSS MB': r.demo.first.peakRssMb, 'first start CPU s': r.demo.first.cpuSeconds }));
  }
  if (r.anvil) lines.push(line('anvil', { 'backfill / serve rate': r.anvil.ratio, 'backfill blocks/s': r.anvil.backfill.blocksPerSecond }));
  if (r.powNode) lines.push(line('pow-node', { 'backfill / serve rate': r.powNode.ratio, 'backfill blocks/s': r.powNode.backfill.blocksPerSecond }));
  if (r.powMainnet) {
    const m = r.powMainnet;
    lines.push(line(`pow-mainnet ${m.blocks}`, { 'backfill blocks/s': m.backfill.blocksPerSecond, 'projected 4.4 M minutes': m.projected.minutes, 'node serve blocks/s': m.serveRate.mean }));
  }
  return lines;
}

export function readHistory(): HistoryLine[] {
  let text = '';
  try {
    text = readFileSync(HISTORY_FILE, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as HistoryLine);
}

export function appendHistory(lines: HistoryLine[]): void {
  appendFileSync(HISTORY_FILE, lines.map((l) => JSON.stringify(l) + '\n').join(''));
}
