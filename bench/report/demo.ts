/** The demo's start-up from empty and again on its data, and the pos backfill from Anvil. */
import type { BenchResults } from '../results.ts';
import { fmt, type Markdown } from './markdown.ts';

export function renderDemo(md: Markdown, r: BenchResults): void {
  const x = r.demo;
  if (!x) return;
  md.line('## Demo');
  md.line();
  md.line(`\`quarry demo\` from an empty data directory answered the pos summary endpoint after **${x.first.seconds} s**, and had every chain in after ${x.first.allInSeconds ?? '?'} s (${x.first.loaded ?? 'load summary not printed'}; ${x.first.cpuSeconds ?? '?'} CPU s; peak RSS ${x.first.peakRssMb ?? '?'} MB); a second start on the same data after **${x.second.seconds} s** (${x.second.cpuSeconds ?? '?'} CPU s; peak RSS ${x.second.peakRssMb ?? '?'} MB). Load average ${x.loadAverage.before.join(' / ')} → ${x.loadAverage.after.join(' / ')}.`);
  md.line();
}

export function renderAnvil(md: Markdown, r: BenchResults): void {
  const x = r.anvil;
  if (!x) return;
  md.line('## pos backfill from Anvil');
  md.line();
  md.line(`${fmt(x.blocks)} blocks, ${fmt(x.transactions)} transactions (filled in ${x.fillSeconds} s). The node serves ${fmt(x.serveRate.before)} blocks/s before and ${fmt(x.serveRate.after)} after the backfill; the backfill into PostgreSQL ran at **${fmt(x.backfill.blocksPerSecond)} blocks/s** (${x.backfill.seconds} s): **${x.ratio}** of the serve rate (target ≥ ${x.target}).`);
  md.line();
}
