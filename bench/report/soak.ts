/** The soak part's section of the report (bench/parts/soak.ts). */
import type { BenchResults } from '../results.ts';
import { fmt, verdict, type Markdown } from './markdown.ts';

export function renderSoak(md: Markdown, r: BenchResults): void {
  const x = r.soak;
  if (!x) return;
  const c = x.checks;
  md.line('## The soak: a week of faults, compressed');
  md.line();
  md.line(
    `${x.options.minutes} min of load (${Math.round(x.wallSeconds / 60)} min with the setup, ${Math.round(x.setupSeconds)} s, and the checks) on the layout of docs/deploy.md: a PostgreSQL primary with a streaming standby, Redis, ` +
      `\`quarry index pow --follow\` and \`quarry index pos --follow\` on the primary, \`quarry serve --workers 2\` on the primary and \`quarry serve\` on the standby. ` +
      `The fake pow node made ${x.options.powBlocksPerSecond} blocks/s (60 s blocks on its clock: ${fmt(x.options.powBlocksPerSecond * 60)}× the real rate), Anvil behind the go-qrl fake ${x.options.posBlocksPerSecond} blocks/s (12 s: ${fmt(x.options.posBlocksPerSecond * 12)}×), ` +
      `each with a reorg every few hundred blocks; ${fmt(x.options.requestsPerSecond)} requests/s of the benchmark's case mix (${fmt(x.chains.paths)} paths) over both APIs, and ${c.streams.length} event streams. ` +
      `${x.postgres}. Load average ${x.loadAverage.before.join(' / ')} before, ${x.loadAverage.after.join(' / ')} after.`,
  );
  md.line();
  md.table(
    ['chain', 'blocks at the end', 'grown during the soak', 'reorgs in the event log', 'days closed'],
    (['pow', 'pos'] as const).map((chain) => {
      const k = x.chains[chain];
      return [chain, fmt(k.blocks), fmt(k.grown), fmt(k.reorgs), fmt(k.days)];
    }),
  );
  md.line('### Checks');
  md.line();
  md.table(['check', 'measured', 'limit', 'result'], c.verdicts.map((v) => [v.check, v.measured, v.limit, verdict(v.pass)]));

  md.line('### The schedule');
  md.line();
  md.line(
    `Steady ${x.schedule.steadyStartSeconds} s, then a fault every ${x.schedule.faultSlotSeconds} s (the slow nodes for ${x.schedule.slowSeconds} s, the dropping ones for ${x.schedule.dropSeconds} s), then steady ${x.schedule.steadyEndSeconds} s. ` +
      'Recovered: both indexers have stored the height the node had when the fault ended, both APIs answer /readyz with 200, the primary\'s serve has two workers, every process runs and every stream is connected.',
  );
  md.line();
  md.table(
    ['fault', 'at (s)', 'lasted (s)', 'recovered after (s)', 'pow: max lag, catch-up (s)', 'pos: max lag, catch-up (s)'],
    x.faults.map((f) => {
      const lag = (chain: 'pow' | 'pos') => {
        const l = c.lag.find((g) => g.fault === f.name && g.chain === chain);
        return l ? `${l.maxLag ?? '?'} blocks, ${l.catchUpSeconds ?? '**never**'}` : '';
      };
      return [f.title, Math.round(f.start), round1(f.activeEnd - f.start), f.recoveredAt === null ? '**not recovered**' : round1(f.recoveredAt - f.activeEnd), lag('pow'), lag('pos')];
    }),
  );
  md.line('Lag in the steady phases (blocks the stored height is behind the node, sampled every 0.5 s):');
  md.line();
  md.table(['phase', 'chain', 'p50', 'max'], c.steadyLag.map((l) => [l.phase, l.chain, l.p50, l.max]));

  md.line('### Answers by phase');
  md.line();
  md.line('Each path of the mix to both APIs in turn; a connection error is listed by its code. Allowed: 2xx, 404 (a transaction or block a reorg took), a 503 with Retry-After inside an outage of the store the API reads, and connection errors while an API worker is killed.');
  md.line();
  md.table(
    ['phase', 'API', 'requests', 'statuses', 'p50 ms', 'p99 ms'],
    c.answers.map((a) => [a.phase, a.target, fmt(a.requests), Object.entries(a.statuses).map(([s, n]) => `${s}: ${fmt(n)}`).join(', '), a.p50, a.p99]),
  );
  if (c.unexpected.length > 0) {
    md.line('Unexpected answers:');
    md.line();
    md.table(['phase', 'API', 'what', 'count', 'example'], c.unexpected.map((u) => [u.phase, u.target, u.what, u.count, `\`${u.example}\``]));
  }

  md.line('### Event streams');
  md.line();
  md.table(
    ['stream', 'events', 'blocks', 'ids', 'connections', 'own drops', 'refused', 'repeats', 'out of order', 'missed', 'gaps', 'unlike the log', 'result'],
    c.streams.map((s) => [
      s.name,
      fmt(s.events),
      fmt(s.blocks),
      `${s.firstId ?? '?'}–${s.lastId ?? '?'} (log: ${s.logLastId})`,
      s.connects,
      s.ownDrops,
      Object.entries(s.refusals).map(([w, n]) => `${w}: ${n}`).join(', '),
      s.duplicates,
      s.outOfOrder,
      s.missing,
      s.gaps,
      s.mismatched,
      verdict(s.pass),
    ]),
  );

  md.line('### Memory');
  md.line();
  md.line(
    "Memory (MB) at the start and the end of each steady phase, and from the start of the first to the end of the last for the processes that lived through both: the least-squares line through the samples, read at the span's ends. " +
      "A Quarry process is judged on what it keeps, by its /metrics (every 5 s; the primary's workers summed): V8's old, code and large-object spaces in use and its memory outside the heap. Its resident memory (from /proc, every 2 s) is shown, not judged: it swings with V8's young generation, which V8 sizes to the allocation rate up to twice the semi-space maximum " +
      "(2 × 64 MB under bin/quarry.js, 2 × 16 MB in an API worker) and gives back when the rate drops. PostgreSQL is judged on the private memory (RssAnon: their RSS counts the shared buffers each touched) of its postmaster and the backends that lived through the span (a backend a pool opened or closed meanwhile, or an autovacuum worker, is a process more or fewer; the table gives how many there were), Redis on its RSS. " +
      'Not judged: the fakes (they hold their growing chains), processes started less than 30 s before the span (still warming up), a PostgreSQL server less than 5 minutes (its backends still filling their catalog, relation and plan caches), spans under a minute, and the whole soak of a sum of workers (one of them was replaced in a fault).',
  );
  md.line();
  md.table(
    ['process', 'pid', 'span', 'start', 'end', 'growth', 'result', 'processes: through the span (at its start, end)'],
    c.memory.map((m) => [
      m.role, m.pid || '', m.phase, m.startMb, m.endMb, `${round1(100 * m.growth)} %`, m.judged ? verdict(m.pass) : '(not judged)',
      m.processes ? `${m.processes.throughout} (${m.processes.start}, ${m.processes.end})` : '',
    ]),
  );

  // Every phase, in the order they ran: where a process's memory moved.
  const phases = [...new Set(c.memoryByPhase.flatMap((m) => Object.keys(m.mb)))];
  md.line('Memory (MB) at the end of each phase:');
  md.line();
  md.table(['process', 'pid', ...phases], c.memoryByPhase.map((m) => [m.role, m.pid, ...phases.map((p) => m.mb[p])]));
  if (c.heapByPhase?.length) {
    md.line(
      "Where a node process's memory is, by its own /metrics at the end of each phase (MB; the primary's workers summed): resident, V8's young generation as reserved " +
        '(sized to the allocation rate, up to twice the semi-space maximum, and given back when the rate drops), the old, code and large-object spaces in use (what the process keeps), and the memory outside the heap:',
    );
    md.line();
    md.table(
      ['process', 'phase', 'resident', 'young generation', 'heap kept', 'outside the heap'],
      c.heapByPhase.map((h) => [h.source, h.phase, h.rssMb, h.youngMb, h.keptMb, h.externalMb]),
    );
  }

  const cpu = Object.entries(c.cpu.byRole).sort((a, b) => b[1] - a[1]);
  md.line(`CPU seconds from the warm-up to the end of the load (${fmt(c.cpu.seconds)} s, so ${fmt(Math.round(2 * c.cpu.seconds))} on two cores): ${cpu.map(([role, s]) => `${role} ${s}`).join(', ')}.`);
  md.line();

  md.line('### Store size');
  md.line();
  md.line(
    `Bytes per block (both chains, the empty migrated database's size taken off): **${fmt(c.size.soakBytesPerBlock)}** in the soaked store against **${fmt(c.size.cleanBytesPerBlock)}** in a clean index of the same chains (${c.size.ratio}×). ` +
      `Growth per block stored during the steady phases: ${c.size.steady.map((s) => `${s.phase} ${s.bytesPerBlock === null ? '?' : fmt(s.bytesPerBlock)} (${fmt(s.blocks)} blocks)`).join(', ')}.`,
  );
  md.line();
  md.line(`The store against the clean index: ${c.store.differ.length === 0 ? `all ${c.store.tables} tables equal (raw tables and every rollup)` : c.store.differ.join('; ')}. The standby against the primary: ${c.store.standbyDiffer.length === 0 ? `equal (unlogged tables aside: ${c.store.unlogged.join(', ') || 'none'})` : c.store.standbyDiffer.join('; ')}.`);
  md.line();

  md.line('### What an operator sees during each fault');
  md.line();
  md.line('What each process logged in the phase (count × message, errors and warnings first; the indexers log at info, the APIs at warn), /readyz of each API (samples each second by status), and the alerting series that moved (min–max over the phase\'s scrapes, every 5 s).');
  md.line();
  for (const view of c.operator) {
    if (view.phase === 'setup') continue;
    md.line(`**${view.phase}**`);
    md.line();
    for (const l of view.logs.slice(0, 14)) md.line(`- ${l.process}, ${l.level}: ${l.count} × \`${l.msg.replaceAll('`', "'")}\``);
    md.line(`- /readyz: ${view.readyz.map((q) => `${q.target} ${Object.entries(q.statuses).map(([s, n]) => `${s} × ${n}`).join(', ') || 'not sampled'}`).join('; ')}`);
    // Timestamps move with every scrape: not news.
    const moved = view.metrics.filter((m) => m.min !== m.max && !/_timestamp_seconds/.test(m.series));
    for (const m of moved.slice(0, 10)) md.line(`- ${m.source}: \`${m.series}\` ${m.min}–${m.max}`);
    md.line();
  }
  md.line('### Processes');
  md.line();
  md.table(['process', 'starts', 'exits the soak did not cause', 'exit code on SIGTERM'], c.processes.map((p) => [p.name, p.starts, p.unexpectedExits.map((e) => `${e.code ?? e.signal} at ${e.at} s`).join(', ') || 'none', p.exitCode]));
}

const round1 = (x: number) => Math.round(x * 10) / 10;

