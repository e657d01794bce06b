/** What the profiling scripts print: the store's time by query label, largest first (TOP rows, default `top`). */
import type { Store } from '../src/store/store.ts';

export function printStoreStats(store: Store, top: number): void {
  const rows = [...store.stats()].sort((a, b) => b[1].totalMs - a[1].totalMs).slice(0, Number(process.env.TOP ?? top));
  for (const [label, s] of rows) console.log(label.padEnd(50), String(Math.round(s.totalMs)).padStart(8), 'ms', String(s.count).padStart(7));
}
