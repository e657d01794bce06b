import type { TierResult } from '../results.ts';
import { fmt } from './markdown.ts';

/**
 * What the rows a build stores allow at most: every stored row costs at least what the server's
 * COPY ceiling for its table says (an unindexed table, nothing else to do), so the rows stored per
 * transaction, each at its table's ceiling, bound the generate-and-store rate before indexes, merges
 * or any client work.
 */
export function storageBound(t: TierResult): string | null {
  const f = t.build.facts;
  if (!f.storedRows) return null;
  const storedTotal = Object.values(f.storedRows).reduce((a, b) => a + b, 0);
  const transactions = f.transactions.total;
  const perTx = (n: number) => (n / transactions).toFixed(1);
  const derived = storedTotal - f.rawRowsTotal;
  const largest = Object.entries(f.storedRows)
    .filter(([table]) => !(table in f.rawRows))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([table, n]) => `${table} ${perTx(n)}`)
    .join(', ');
  let text =
    `Rows stored per transaction (${t.tier} ${t.store}): **${perTx(storedTotal)}** (${fmt(storedTotal)} rows for ${fmt(transactions)} transactions): ` +
    `${perTx(f.rawRowsTotal)} raw and ${perTx(derived)} derived or curated (${largest}, …).`;
  const ceiling = t.copy?.server?.rowsPerSecond;
  if (!ceiling) return text;
  // Seconds of COPY per transaction: each table's rows at its own ceiling where measured, else the transactions'.
  const byTable = t.copy?.serverByTable ?? {};
  let seconds = 0;
  for (const [table, n] of Object.entries(f.storedRows)) seconds += n / transactions / (byTable[table]?.rowsPerSecond ?? ceiling);
  const measured = Object.entries(byTable).map(([table, r]) => `${table} ${fmt(r.rowsPerSecond)}`).join(', ');
  text +=
    ` Storing them at the server's COPY ceiling (into unindexed tables, nothing else to do: ${measured ? `${measured} rows/s, the rest at` : ''} ${fmt(ceiling)} rows/s)` +
    ` allows at most about **${fmt(Math.round(1 / seconds))} tx/s** for one server process, before indexes, merges or any client work.`;
  return text;
}
