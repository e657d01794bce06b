/**
 * Results: the figures of a run as JSON and as Markdown under bench/results/, with what follows
 * from them — the targets passed or failed, the growth of latency from S to M, and the changes
 * since the previous results file.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cursorConstancy } from './parts/api.ts';
import { RESULTS_DIR } from './proc.ts';
import type { BenchResults, TierResult } from './results.ts';

export interface TargetRow {
  target: string;
  scope: string;
  value: string;
  limit: string;
  pass: boolean | null;
  note?: string;
}

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

export interface Change {
  what: string;
  previous: number;
  current: number;
  /** current / previous − 1. */
  change: number;
}

export interface Derived {
  targets: TargetRow[];
  growth: GrowthRow[];
  comparison: { file: string; loadAverage: number[]; figures: Change[]; cases: Change[] } | null;
}

/** Results files, newest first (by name, which starts with the time of the run). */
export function previousResults(): { file: string; results: BenchResults }[] {
  let files: string[] = [];
  try {
    files = readdirSync(RESULTS_DIR).filter((f) => f.endsWith('.json')).sort().reverse();
  } catch {
    return [];
  }
  const out: { file: string; results: BenchResults }[] = [];
  for (const file of files) {
    try {
      const results = JSON.parse(readFileSync(path.join(RESULTS_DIR, file), 'utf8')) as BenchResults;
      if (results.format === 1) out.push({ file, results });
    } catch {
      // not a results file
    }
  }
  return out;
}

export function writeResults(results: BenchResults): { json: string; markdown: string } {
  const previous = previousResults();
  const derived: Derived = { targets: targetRows(results), growth: growthRows(results, previous), comparison: compare(results, comparable(results, previous)) };
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = results.startedAt.replace(/:\d\d\.\d+Z$/, '').replace(/[:T]/g, '-');
  const name = `${stamp}_${results.options.tiers.join('')}_${results.options.stores.join('-')}`;
  const json = path.join(RESULTS_DIR, `${name}.json`);
  const markdown = path.join(RESULTS_DIR, `${name}.md`);
  writeFileSync(json, JSON.stringify({ ...results, derived }, null, 2) + '\n');
  writeFileSync(markdown, renderMarkdown(results, derived));
  return { json, markdown };
}

/**
 * Writes the Markdown of a results file again with the current report code (the figures are
 * not touched; targets, growth and the comparison are derived again, against the files before it).
 */
export function renderAgain(jsonFile: string): string {
  const results = JSON.parse(readFileSync(jsonFile, 'utf8')) as BenchResults & { derived?: Derived };
  delete results.derived;
  const name = path.basename(jsonFile);
  const previous = previousResults().filter((p) => p.file < name);
  const derived: Derived = { targets: targetRows(results), growth: growthRows(results, previous), comparison: compare(results, comparable(results, previous)) };
  const markdown = jsonFile.replace(/\.json$/, '.md');
  writeFileSync(jsonFile, JSON.stringify({ ...results, derived }, null, 2) + '\n');
  writeFileSync(markdown, renderMarkdown(results, derived));
  return markdown;
}

// ---- targets -----------------------------------------------------------------------------------

const GENERATOR_TARGET = 100_000;

function targetRows(results: BenchResults): TargetRow[] {
  const rows: TargetRow[] = [];
  for (const t of results.tiers) {
    const scope = `${t.tier} ${t.store}`;
    if (t.store === 'postgres') {
      rows.push({
        target: 'generator: generated and stored tx/s on PostgreSQL',
        scope,
        value: fmt(t.build.txPerSecond.both),
        limit: `≥ ${fmt(GENERATOR_TARGET)}`,
        pass: t.build.txPerSecond.both >= GENERATOR_TARGET,
        note: t.built ? undefined : `measured when the tier was built (${t.build.builtAt.slice(0, 16)})`,
      });
    }
    for (const check of t.build.checks.filter((c) => c.min > 0)) {
      rows.push({ target: `world size: ${check.name}`, scope, value: fmt(check.value), limit: `≥ ${fmt(check.min)}`, pass: check.pass });
    }
    if (!t.api) continue;
    const measured = t.api.cases.filter((c) => c.target && c.status !== 'route missing' && c.status !== 'skipped');
    const big = t.build.facts.transactions.total >= 5_000_000;
    const note = big ? undefined : 'the targets are set for a chain of ≥ 5 M transactions; shown for information';
    const group = (label: string, kinds: string[], limit: string) => {
      const cases = measured.filter((c) => kinds.includes(c.target!.kind));
      if (cases.length === 0) {
        rows.push({ target: label, scope, value: 'no endpoint served yet', limit, pass: null, note });
        return;
      }
      const failed = cases.filter((c) => !c.pass);
      const failedLoaded = cases.filter((c) => !c.passLoaded);
      const worst = [...cases].sort((a, b) => (b.single?.p99 ?? Infinity) - (a.single?.p99 ?? Infinity))[0]!;
      rows.push({
        target: label,
        scope,
        value: `${cases.length - failed.length}/${cases.length} pass at one connection (under ${t.api!.connections} connections: ${cases.length - failedLoaded.length}/${cases.length}); worst p99 ${worst.single ? `${worst.single.p99} ms` : worst.status} (${worst.id})`,
        limit,
        pass: failed.length === 0,
        note,
      });
    };
    group('Addresses API, ordinary and busiest address, every endpoint', ['address', 'endpoint'], 'p99 ≤ 10 ms');
    group('Addresses API, offset 100,000', ['offset'], 'p99 ≤ 50 ms');
    group('Addresses API, top/active with any filter or sort', ['top-active'], 'p99 ≤ 20 ms');
    // Judged again from the cases, so that --render applies the current rule.
    const cursor = cursorConstancy(t.api.cases);
    rows.push({
      target: 'cursor pages in constant time at any depth',
      scope,
      value: cursor.length === 0 ? 'no cursor endpoint served yet' : cursor.map((c) => `${c.chain} @${fmt(c.depth)}: ${c.ratio}× page 2`).join(', '),
      limit: 'p50 (1 conn) ≤ 1.5 × page 2 + 0.5 ms',
      pass: cursor.length === 0 ? null : cursor.every((c) => c.pass),
      note,
    });
  }
  if (results.demo) {
    const d = results.demo;
    rows.push({ target: 'demo answers from empty', scope: 'PGlite', value: `${d.first.seconds} s`, limit: `≤ ${d.targets.firstSeconds} s`, pass: d.pass.first });
    rows.push({ target: 'demo answers on a second start', scope: 'PGlite', value: `${d.second.seconds} s`, limit: `≤ ${d.targets.secondSeconds} s`, pass: d.pass.second });
  }
  if (results.anvil) {
    const a = results.anvil;
    rows.push({
      target: 'pos backfill from Anvil vs the node’s serve rate',
      scope: 'PostgreSQL',
      value: `${a.backfill.blocksPerSecond} / ${a.serveRate.mean} blocks/s = ${a.ratio}`,
      limit: `≥ ${a.target}`,
      pass: a.pass,
    });
  }
  return rows;
}

// ---- growth S → M -------------------------------------------------------------------------------

function growthRows(results: BenchResults, previous: { file: string; results: BenchResults }[]): GrowthRow[] {
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

// ---- comparison with the previous results file -----------------------------------------------

/** The newest earlier results file that measured something this run measured (a tier on a store, the demo, Anvil). */
function comparable(current: BenchResults, previous: { file: string; results: BenchResults }[]): { file: string; results: BenchResults } | undefined {
  return previous.find(
    (p) =>
      current.tiers.some((t) => p.results.tiers.some((x) => x.tier === t.tier && x.store === t.store)) ||
      (current.demo && p.results.demo) ||
      (current.anvil && p.results.anvil),
  );
}

function compare(current: BenchResults, previous: { file: string; results: BenchResults } | undefined): Derived['comparison'] {
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

// ---- Markdown ----------------------------------------------------------------------------------

function renderMarkdown(r: BenchResults, d: Derived): string {
  const out: string[] = [];
  const line = (s = '') => out.push(s);
  const table = (head: string[], rows: (string | number | null | undefined)[][]) => {
    line(`| ${head.join(' | ')} |`);
    line(`|${head.map(() => '---').join('|')}|`);
    for (const row of rows) line(`| ${row.map((v) => (v === null || v === undefined ? '' : String(v))).join(' | ')} |`);
    line();
  };

  line(`# Quarry benchmark, ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC`);
  line();
  line(`\`${r.command}\` — ${Math.floor(r.wallSeconds / 60)} min ${Math.round(r.wallSeconds % 60)} s, commit ${r.git.commit.slice(0, 10)}${r.git.dirty ? ' (with uncommitted changes)' : ''}.`);
  line();
  const m = r.machine;
  line(
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node}` +
      (m.postgres ? `, PostgreSQL ${m.postgres.version} (${m.postgres.origin}; ${Object.entries(m.postgres.settings).map(([k, v]) => `${k} ${v}`).join(', ')})` : '') +
      `. Load average at start ${m.loadAverage.start.join(' / ')}, at end ${m.loadAverage.end.join(' / ')} (1 / 5 / 15 min)` +
      (Math.max(...m.loadAverage.start, ...m.loadAverage.end) > m.cpus ? ' — **the machine was busy with other work: absolute times are inflated; ratios measured in one run hold better.**' : '.'),
  );
  line();

  line('## Targets');
  line();
  table(['target', 'scope', 'measured', 'limit', 'result'], d.targets.map((t) => [t.target, t.scope, t.value, t.limit, verdict(t.pass) + (t.note ? ` (${t.note})` : '')]));

  if (r.tiers.length > 0) {
    line('## Data');
    line();
    table(
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
      line(`Most active addresses (${t.tier}): ` + (['pow', 'pos'] as const).map((c) => `${c}: ${t.build.facts.top[c].map((a) => `${short(a.address)} ${a.label ?? ''} ${fmt(a.txCount)}`).join(', ')}`).join('; ') + '.');
      line();
    }

    line('## Generate, ingest and the COPY ceiling');
    line();
    line('Generator alone = the generator fast-forwarding through each chain with nothing stored (measured by the ingest part). Generate = generate-and-store (the raw phase of the bulk load: blocks generated, raw rows COPYed, rollup deltas applied in large steps); finish = closing every day, rebuilding indexes, VACUUM ANALYZE. Pipeline = incremental ingest (not bulk) of the last day of each chain replayed from memory, default batches. COPY ceiling = rows shaped like `transactions` into an unindexed table: server-side (text the server produced) and through `store.copyRows` (encoding included).');
    line();
    table(
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
        line(bound);
        line();
      }
    }
    const withLabels = r.tiers.filter((t) => t.built);
    for (const t of withLabels) {
      line(`Where the build's store time went (${t.tier} ${t.store}, ms): ${t.build.topLabels.map((l) => `${l.label} ${fmt(l.ms)}`).join(', ')}.`);
      line();
    }

    const ingests = r.tiers.filter((t) => t.ingest);
    if (ingests.length > 0) {
      line('## Rollup cost per ingested block');
      line();
      line('The last day of each chain, generated into memory, then written onto the base (the world without that day). Batched: default batches of up to 1000 blocks; rollup cost = (pipeline − raw rows only) / blocks. Followed: the last blocks one per transaction, as when following a node (includes closing the day at midnight).');
      line();
      table(
        ['tier', 'store', 'chain', 'batched blocks (txs)', 'pipeline blocks/s', 'raw only blocks/s', 'rollup ms/block', 'rollup SQL s (day closing)', 'followed blocks', 'followed ms/block: pipeline mean (p50 / p99)', 'raw only', 'rollups'],
        ingests.flatMap((t) =>
          (['pow', 'pos'] as const).map((c) => {
            const x = t.ingest!.chains[c];
            return [
              t.tier,
              t.store,
              c,
              `${fmt(x.pipeline.blocks)} (${fmt(x.pipeline.transactions)})`,
              fmt(x.pipeline.blocksPerSecond),
              fmt(x.rawOnly.blocksPerSecond),
              `**${x.rollupMsPerBlock}**`,
              `${x.pipeline.rollupSqlSeconds} (${x.pipeline.closeDaysSeconds})`,
              fmt(x.live.blocks),
              `${x.live.pipelineMsPerBlock.mean} (${x.live.pipelineMsPerBlock.p50} / ${x.live.pipelineMsPerBlock.p99})`,
              x.live.rawMsPerBlock.mean,
              `**${x.live.rollupMsPerBlock}**`,
            ];
          }),
        ),
      );
      for (const t of ingests) {
        for (const c of ['pow', 'pos'] as const) {
          const x = t.ingest!.chains[c];
          line(
            `${t.tier} ${t.store} ${c}, ms per block by statement — batched: ${x.pipeline.topLabels.map((l) => `${l.label} ${l.ms}`).join(', ')}; ` +
              `followed: ${x.live.topLabels.map((l) => `${l.label} ${l.ms}`).join(', ')}.`,
          );
          line();
        }
      }
    }
  }

  for (const t of r.tiers.filter((x) => x.api)) {
    const a = t.api!;
    line(`## API, tier ${t.tier} (${t.store})`);
    line();
    line(
      `API process: ready in ${a.server.startSeconds} s, RSS ${a.server.rssAfterStartMb ?? '?'} MB after start, **peak RSS ${a.server.peakRssMb ?? '?'} MB**, ${a.server.rssEndMb ?? '?'} MB at the end (log level ${a.server.logLevel}). ` +
        `Load per case: one connection, then ${a.connections} connections, for ${a.seconds} s each. Load average ${a.loadAverage.before.join(' / ')} → ${a.loadAverage.after.join(' / ')}; the part took ${Math.round(a.wallSeconds)} s.`,
    );
    line();
    const missing = [...new Set(a.cases.filter((c) => c.status === 'route missing').map((c) => c.route))];
    if (missing.length > 0) line(`Not served yet (${missing.length} of 13 routes, ${a.cases.filter((c) => c.status === 'route missing').length} cases waiting): ${missing.map((p) => `\`${p.replace('/api/v1/{chain}/addresses', '…')}\``).join(', ')}.`);
    if (a.notBenchmarked.length > 0) line(`Served but not benchmarked (no parameter table): ${a.notBenchmarked.map((p) => `\`${p}\``).join(', ')}.`);
    line();
    const shown = a.cases.filter((c) => c.status !== 'route missing');
    table(
      ['case', 'bytes', 'p50 / p99 ms, 1 conn', `p50 / p99 ms, ${a.connections} conn`, 'req/s', 'target', 'result', 'vs static'],
      shown.map((c) => [
        c.id + (c.note ? ` — ${c.note}` : ''),
        c.bytes ? fmt(c.bytes) : '',
        c.single ? `${c.single.p50} / ${c.single.p99}` : '',
        c.loaded ? `${c.loaded.p50} / ${c.loaded.p99}` : '',
        c.loaded ? fmt(c.loaded.rps) : '',
        c.target ? `≤ ${c.target.ms}` : '',
        c.status === 'measured' ? (c.target ? `${verdict(c.pass ?? null)}${c.pass !== c.passLoaded ? ` (${a.connections} conn: ${verdict(c.passLoaded ?? null)})` : ''}` : 'info') : `**${c.status}**: ${c.problem ?? ''}`,
        c.ceiling ? `${pct(c.ceiling.ratio)} of ${fmt(c.ceiling.loaded.rps)}/s` : '',
      ]),
    );
    const hot = shown.filter((c) => c.ceiling);
    if (hot.length > 0) {
      line(`Hot endpoints against the static ceiling (the same server answering a precomputed JSON body of the same size through the same plugins, ${a.connections} connections, measured right after): ` +
        hot.map((c) => `${c.id} ${pct(c.ceiling!.ratio)} (${fmt(c.loaded!.rps)} of ${fmt(c.ceiling!.loaded.rps)} req/s; static p99 ${c.ceiling!.loaded.p99} ms)`).join('; ') + '.');
      line();
    }
  }

  if (d.growth.length > 0) {
    line('## Growth from S to M');
    line();
    line('M/S of p50 with one connection (service time) and of p99 under load, per case.');
    line();
    table(['case', 'store', 'p50 S → M ms', 'M/S p50', 'p99 S → M ms', 'M/S p99', 'from'], d.growth.map((g) => [g.id, g.store, `${g.p50S} → ${g.p50M}`, g.p50Ratio, `${g.p99S} → ${g.p99M}`, g.p99Ratio, g.source]));
  }

  if (r.demo) {
    const x = r.demo;
    line('## Demo');
    line();
    line(`\`quarry demo\` from an empty data directory answered the summary endpoint after **${x.first.seconds} s** (${x.first.loaded ?? 'load summary not printed'}; peak RSS ${x.first.peakRssMb ?? '?'} MB); a second start on the same data after **${x.second.seconds} s** (peak RSS ${x.second.peakRssMb ?? '?'} MB). Load average ${x.loadAverage.before.join(' / ')} → ${x.loadAverage.after.join(' / ')}.`);
    line();
  }
  if (r.anvil) {
    const x = r.anvil;
    line('## pos backfill from Anvil');
    line();
    line(`${fmt(x.blocks)} blocks, ${fmt(x.transactions)} transactions (filled in ${x.fillSeconds} s). The node serves ${fmt(x.serveRate.before)} blocks/s before and ${fmt(x.serveRate.after)} after the backfill; the backfill into PostgreSQL ran at **${fmt(x.backfill.blocksPerSecond)} blocks/s** (${x.backfill.seconds} s): **${x.ratio}** of the serve rate (target ≥ ${x.target}).`);
    line();
  }

  if (d.comparison) {
    const c = d.comparison;
    line(`## Compared with ${c.file}`);
    line();
    line(`That run started at load average ${c.loadAverage.join(' / ')}; this one at ${r.machine.loadAverage.start.join(' / ')}.`);
    line();
    if (c.figures.length > 0) table(['figure', 'previous', 'now', 'change'], c.figures.map((x) => [x.what, fmt(x.previous), fmt(x.current), signedPct(x.change)]));
    const notable = c.cases.filter((x) => Math.abs(x.change) >= 0.2).slice(0, 20);
    if (notable.length > 0) {
      line(`Cases whose p99 under load moved by 20 % or more (${notable.length} shown of ${c.cases.length} compared):`);
      line();
      table(['case', 'previous ms', 'now ms', 'change'], notable.map((x) => [x.what, x.previous, x.current, signedPct(x.change)]));
    } else if (c.cases.length > 0) {
      line(`No case's p99 under load moved by 20 % or more (${c.cases.length} compared).`);
      line();
    }
  }

  if (r.errors.length > 0) {
    line('## Errors');
    line();
    for (const e of r.errors) line(`- ${e.part}${e.tier ? ` (${e.tier})` : ''}: ${e.message.split('\n')[0]}`);
    line();
  }
  return out.join('\n');
}

function verdict(pass: boolean | null): string {
  return pass === null ? '—' : pass ? 'pass' : '**FAIL**';
}

function fmt(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en') : String(n);
}

function pct(ratio: number): string {
  return `${Math.round(ratio * 100)} %`;
}

function signedPct(change: number): string {
  const p = Math.round(change * 100);
  return `${p > 0 ? '+' : ''}${p} %`;
}

function ratio(a: number, b: number): number {
  return Math.round((a / Math.max(0.01, b)) * 100) / 100;
}

function short(address: string): string {
  return address.length > 14 ? `${address.slice(0, 10)}…` : address;
}

/**
 * What the rows a build stores allow at most: every stored row costs at least what the server's
 * COPY ceiling for its table says (an unindexed table, nothing else to do), so the rows stored per
 * transaction, each at its table's ceiling, bound the generate-and-store rate before indexes, merges
 * or any client work.
 */
function storageBound(t: TierResult): string | null {
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
