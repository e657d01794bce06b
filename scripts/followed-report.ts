/**
 * What profile-follow.ts and profile-refollow.ts print about followed blocks: the mean, the time by
 * part of the API and by rollup (day closes apart), and every statement label's ms and calls per block.
 */
import { rollupCostsSince, type RollupTotals } from '../bench/parts/ingest.ts';
import type { Store } from '../src/store/store.ts';

export type LabelTotals = Map<string, { totalMs: number; count: number }>;

/** Each statement label's totals so far, to print what comes after. */
export function labelTotalsOf(store: Store): LabelTotals {
  return new Map([...store.stats()].map(([label, s]) => [label, { totalMs: s.totalMs, count: s.count }]));
}

/** Statement labels' ms and calls per `per` since `before`, largest first. */
export function statementsSince(store: Store, before: LabelTotals, per: number): { label: string; ms: number; calls: number }[] {
  return [...store.stats()]
    .map(([label, s]) => ({ label, ms: (s.totalMs - (before.get(label)?.totalMs ?? 0)) / per, calls: (s.count - (before.get(label)?.count ?? 0)) / per }))
    .filter((r) => r.calls > 0)
    .sort((a, b) => b.ms - a.ms);
}

export function printFollowed(title: string, store: Store, before: { labels: LabelTotals; rollups: RollupTotals }, times: number[], skip: string[] = []): void {
  const blocks = times.length;
  console.log(`${title}: ${blocks} followed blocks, ${(times.reduce((a, b) => a + b, 0) / blocks).toFixed(2)} ms per block`);
  const { byPart, byRollup, dayClose } = rollupCostsSince(before.rollups, blocks);
  console.log(`by part: ${Object.entries(byPart).map(([part, ms]) => `${part} ${ms}`).join(', ')} ms per block (day closes apart)`);
  console.log(`by rollup: ${byRollup.map((r) => `${r.label} ${r.ms}`).join(', ')}`);
  console.log(`day closes: ${dayClose.closes}, ${dayClose.ms} ms each: ${dayClose.byChart.map((c) => `${c.label} ${c.ms}`).join(', ')}`);
  const rows = statementsSince(store, before.labels, blocks).filter((r) => !skip.includes(r.label));
  const statements = rows.filter((r) => !r.label.endsWith('(transaction)'));
  console.log(`statements per block: ${statements.reduce((n, r) => n + r.calls, 0).toFixed(1)}, their ms per block: ${statements.reduce((n, r) => n + r.ms, 0).toFixed(2)}`);
  for (const r of rows.slice(0, Number(process.env.TOP ?? 80))) console.log(r.label.padEnd(52), r.ms.toFixed(3).padStart(8), 'ms', r.calls.toFixed(2).padStart(7), 'calls');
}
