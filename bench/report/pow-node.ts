/** The pow-node part's section of the report. */
import type { BenchResults } from '../results.ts';
import { fmt, type Markdown } from './markdown.ts';

export function renderPowNode(md: Markdown, r: BenchResults): void {
  const x = r.powNode;
  if (!x) return;
  md.line('## pow backfill from a fake QRL node (gRPC)');
  md.line();
  md.line(`${fmt(x.blocks)} blocks, ${fmt(x.transactions)} transactions. The node serves ${fmt(x.serveRate.before)} blocks/s before and ${fmt(x.serveRate.after)} after the backfill; the backfill into PostgreSQL ran at **${fmt(x.backfill.blocksPerSecond)} blocks/s** (${x.backfill.seconds} s): **${x.ratio}** of the serve rate (target ≥ ${x.target}).`);
  md.line();
}
