/** The tiers' data and how fast they were built, ingested and COPYed, with the storage bound. */
import type { BenchResults } from '../results.ts';
import { fmt, short, type Markdown } from './markdown.ts';
import { storageBound } from './storage-bound.ts';

export function renderData(md: Markdown, r: BenchResults): void {
  if (r.tiers.length === 0) return;
  md.line('## Data');
  md.line();
  md.table(
    ['tier', 'store', 'world', 'transactions (pow + pos)', 'addresses', 'busiest address (pow / pos)', 'raw rows', 'database', 'built'],
    r.tiers.map((t) => {
      const f = t.build.facts;
      const w = t.build.world as { scale: number; powDays: number; posDays: number };
      return [
        t.tier,
        t.store,
        `scale ${fmt(w.scale)}, ${w.powDays} + ${w.posDays} days`,
        `${fmt(f.transactions.total)} (${fmt(f.transactions.pow)} + ${fmt(f.transactions.pos)})`,
        fmt(f.addresses.total),
        `${fmt(f.notable.pow.busiestHotWallet.txCount)} / ${fmt(f.notable.pos.busiestHotWallet.txCount)}`,
        fmt(f.rawRowsTotal),
        `${fmt(f.databaseMb)} MB`,
        `${t.build.seconds.total} s${t.built ? '' : ` (reused, built ${t.build.builtAt.slice(0, 10)})`}`,
      ];
    }),
  );
  const tops = r.tiers.filter((t) => t.built || t === r.tiers[0]);
  for (const t of tops.slice(0, 1)) {
    md.line(`Most active addresses (${t.tier}): ` + (['pow', 'pos'] as const).map((c) => `${c}: ${t.build.facts.top[c].map((a) => `${short(a.address)} ${a.label ?? ''} ${fmt(a.txCount)}`).join(', ')}`).join('; ') + '.');
    md.line();
  }
}

export function renderBuild(md: Markdown, r: BenchResults): void {
  if (r.tiers.length === 0) return;
  md.line('## Generate, ingest and the COPY ceiling');
  md.line();
  md.line('Generator alone = the generator fast-forwarding through each chain with nothing stored (measured by the ingest part). Generate = generate-and-store (the raw phase of the bulk load: blocks generated, raw rows COPYed, rollup deltas applied in large steps); finish = closing every day, rebuilding indexes, VACUUM ANALYZE. Pipeline = incremental ingest (not bulk) of the last day of each chain replayed from memory, default batches. COPY ceiling = rows shaped like `transactions` into an unindexed table: server-side (text the server produced) and through `store.copyRows` (encoding included).');
  md.line();
  md.table(
    ['tier', 'store', 'generator alone tx/s (pow / pos)', 'generate tx/s (pow / pos / both)', 'raw rows/s', 'finish', 'whole build tx/s', 'bench CPU / raw phase', 'pipeline tx/s (pow / pos)', 'raw rows only tx/s (pow / pos)', 'COPY ceiling rows/s (server / store)'],
    r.tiers.map((t) => {
      const b = t.build;
      const i = t.ingest;
      return [
        t.tier,
        t.store,
        i ? `${fmt(i.chains.pow.generatorTxPerSecond)} / ${fmt(i.chains.pos.generatorTxPerSecond)}` : '',
        `${fmt(b.txPerSecond.pow)} / ${fmt(b.txPerSecond.pos)} / **${fmt(b.txPerSecond.both)}**`,
        fmt(b.rawRowsPerSecond),
        `${b.seconds.finish} s`,
        fmt(b.endToEndTxPerSecond),
        `${b.benchCpuSeconds} / ${Math.round(b.seconds.pow + b.seconds.pos)} s`,
        i ? `${fmt(i.chains.pow.pipeline.txPerSecond)} / ${fmt(i.chains.pos.pipeline.txPerSecond)}` : '',
        i ? `${fmt(i.chains.pow.rawOnly.txPerSecond)} / ${fmt(i.chains.pos.rawOnly.txPerSecond)}` : '',
        t.copy ? `${t.copy.server ? fmt(t.copy.server.rowsPerSecond) + ` (${t.copy.server.megabytesPerSecond} MB/s)` : '—'} / ${fmt(t.copy.store_copyRows.rowsPerSecond)}` : '',
      ];
    }),
  );
  for (const t of r.tiers) {
    const bound = storageBound(t);
    if (bound) {
      md.line(bound);
      md.line();
    }
  }
  for (const t of r.tiers.filter((x) => x.built)) {
    md.line(`Where the build's store time went (${t.tier} ${t.store}, ms): ${t.build.topLabels.map((l) => `${l.label} ${fmt(l.ms)}`).join(', ')}.`);
    md.line();
  }
}
