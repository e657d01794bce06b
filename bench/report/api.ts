/** Per tier: the API process's start and memory, every case's latency and verdict, and the static ceiling. */
import type { TierResult } from '../results.ts';
import { fmt, pct, verdict, type Markdown } from './markdown.ts';

export function renderApi(md: Markdown, t: TierResult): void {
  const a = t.api;
  if (!a) return;
  md.line(`## API, tier ${t.tier} (${t.store})`);
  md.line();
  const workers = a.server.workers ?? 1;
  const processes = a.server.processes ?? [];
  md.line(
    (workers > 1
      ? `API: ${workers} worker processes on one port (node:cluster, as \`quarry serve --workers ${workers}\`), ready in ${a.server.startSeconds} s; per process (RSS after start / **peak** / at the end, MB): ` +
        processes.map((p) => `${p.role} ${p.pid} ${p.rssAfterStartMb ?? '?'} / **${p.peakRssMb ?? '?'}** / ${p.rssEndMb ?? '?'}`).join(', ') +
        `; peaks in all ${a.server.totalPeakRssMb ?? '?'} MB (log level ${a.server.logLevel}). `
      : `API process: ready in ${a.server.startSeconds} s, RSS ${a.server.rssAfterStartMb ?? '?'} MB after start, **peak RSS ${a.server.peakRssMb ?? '?'} MB**, ${a.server.rssEndMb ?? '?'} MB at the end (log level ${a.server.logLevel}). `) +
      (a.server.nodeFlags ? `Node flags as \`quarry serve\`: ${a.server.nodeFlags.map((f) => `\`${f}\``).join(' ') || 'none'}. ` : '') +
      `Load per case: one connection, then ${a.connections} connections, for ${a.seconds} s each. Load average ${a.loadAverage.before.join(' / ')} → ${a.loadAverage.after.join(' / ')}; the part took ${Math.round(a.wallSeconds)} s.`,
  );
  md.line();
  md.line(
    'One connection three times: as requests come (the answers the API keeps between blocks are sent again, docs/api-conventions.md), ' +
      'then with `Cache-Control: no-cache`, every answer computed anew as the first request after each block is ("computed"), ' +
      'then as a browser asks, with `Accept-Encoding: gzip, deflate, br` ("compressed", through node:http rather than autocannon, whose decoding of binary bodies as text would dominate; body bytes per answer). Targets are judged on the first and the last.',
  );
  md.line();
  const missing = [...new Set(a.cases.filter((c) => c.status === 'route missing').map((c) => c.route))];
  if (missing.length > 0) md.line(`Not served yet (${missing.length} of 13 routes, ${a.cases.filter((c) => c.status === 'route missing').length} cases waiting): ${missing.map((p) => `\`${p.replace('/api/v1/{chain}/addresses', '…')}\``).join(', ')}.`);
  if (a.notBenchmarked.length > 0) md.line(`Served but not benchmarked (no parameter table): ${a.notBenchmarked.map((p) => `\`${p}\``).join(', ')}.`);
  md.line();
  const shown = a.cases.filter((c) => c.status !== 'route missing');
  md.table(
    ['case', 'bytes', 'p50 / p99 ms, 1 conn', 'computed p50 / p99 ms, 1 conn', 'compressed p50 / p99 ms, 1 conn (bytes)', `p50 / p99 ms, ${a.connections} conn`, 'req/s', 'target', 'result', 'vs static'],
    shown.map((c) => [
      c.id + (c.note ? ` — ${c.note}` : ''),
      c.bytes ? fmt(c.bytes) : '',
      c.single ? `${c.single.p50} / ${c.single.p99}` : '',
      c.computed ? `${c.computed.p50} / ${c.computed.p99}` : '',
      c.compressed ? `${c.compressed.p50} / ${c.compressed.p99} (${fmt(c.compressed.bytesPerResponse)})` : '',
      c.loaded ? `${c.loaded.p50} / ${c.loaded.p99}` : '',
      c.loaded ? fmt(c.loaded.rps) : '',
      c.target ? `≤ ${c.target.ms}` : '',
      c.refused ? `refused ${c.refused.status}: ${c.refused.detail}` : c.status === 'measured' ? (c.target ? `${verdict(c.pass ?? null)}${c.pass !== c.passLoaded ? ` (${a.connections} conn: ${verdict(c.passLoaded ?? null)})` : ''}` : 'info') : `**${c.status}**: ${c.problem ?? ''}`,
      c.ceiling ? `${pct(c.ceiling.ratio)} of ${fmt(c.ceiling.loaded.rps)}/s` : '',
    ]),
  );
  if (a.bounds) {
    const hostile = shown.filter((c) => c.target?.kind === 'hostile');
    md.line(
      `Hostile cases (the deepest pages the served OpenAPI accepts${a.bounds.documented === false ? ', or an offset of 10,000 where it documents no bound' : ''}: top/active page ${fmt(a.bounds.topActivePage)}, feed offset ${fmt(a.bounds.feedOffset)}), p99 at one connection / under ${a.connections}: ` +
        hostile.map((c) => `${c.id} ${c.refused ? `refused ${c.refused.status}` : c.single ? `${c.single.p99} / ${c.loaded?.p99 ?? '?'} ms` : c.status}`).join('; ') + '.',
    );
    md.line();
  }
  const hot = shown.filter((c) => c.ceiling);
  if (hot.length > 0) {
    md.line(`Hot endpoints against the static ceiling (the same server answering a precomputed JSON body of the same size through the same plugins, ${a.connections} connections, measured right after): ` +
      hot.map((c) => `${c.id} ${pct(c.ceiling!.ratio)} (${fmt(c.loaded!.rps)} of ${fmt(c.ceiling!.loaded.rps)} req/s; static p99 ${c.ceiling!.loaded.p99} ms)`).join('; ') + '.');
    md.line();
  }
}
