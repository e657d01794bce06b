/** The report's title, command and machine, with a warning when other work loaded the machine. */
import type { BenchResults } from '../results.ts';
import type { Markdown } from './markdown.ts';

export function renderHeader(md: Markdown, r: BenchResults): void {
  md.line(`# Quarry benchmark, ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC`);
  md.line();
  md.line(`\`${r.command}\` — ${Math.floor(r.wallSeconds / 60)} min ${Math.round(r.wallSeconds % 60)} s, commit ${r.git.commit.slice(0, 10)}${r.git.dirty ? ' (with uncommitted changes)' : ''}.`);
  md.line();
  const m = r.machine;
  md.line(
    `Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node}` +
      (m.postgres ? `, PostgreSQL ${m.postgres.version} (${m.postgres.origin}; ${Object.entries(m.postgres.settings).map(([k, v]) => `${k} ${v}`).join(', ')})` : '') +
      `. Load average at start ${m.loadAverage.start.join(' / ')}, at end ${m.loadAverage.end.join(' / ')} (1 / 5 / 15 min)` +
      (Math.max(...m.loadAverage.start, ...m.loadAverage.end) > m.cpus ? ' — **the machine was busy with other work: absolute times are inflated; ratios measured in one run hold better.**' : '.'),
  );
  md.line();
}

export function renderErrors(md: Markdown, r: BenchResults): void {
  if (r.errors.length === 0) return;
  md.line('## Errors');
  md.line();
  for (const e of r.errors) md.line(`- ${e.part}${e.tier ? ` (${e.tier})` : ''}: ${e.message.split('\n')[0]}`);
  md.line();
}
