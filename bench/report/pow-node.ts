/** The pow-node and pow-mainnet parts' sections of the report. */
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

export function renderPowMainnet(md: Markdown, r: BenchResults): void {
  const x = r.powMainnet;
  if (!x) return;
  const s = x.slice;
  md.line('## Mainnet-shaped pow history backfilled from a fake QRL node (gRPC)');
  md.line();
  md.line(
    `Heights 0-${fmt(s.toHeight)} (${fmt(x.blocks)} blocks, ${Math.round(s.share * 1000) / 10} %) of a ${fmt(s.historyBlocks)}-block history from mainnet's genesis time (${s.genesisTs}, 60 s blocks): ${Math.round(s.coinbaseOnlyShare * 100)} % of the blocks drawn coinbase-only, the rest with the generator's pow mix at scale ${fmt(s.scale)}; the node holds ${s.measuredCoinbaseOnly === null ? '?' : `${Math.round(s.measuredCoinbaseOnly * 1000) / 10} %`} coinbase-only blocks and ${fmt(x.transactions)} transactions (${Math.round((x.transactions / x.blocks) * 100) / 100} a block, coinbases included). The node generated and encoded them in ${s.prepareSeconds} s, before anything was timed.`,
  );
  md.line();
  md.line(
    `\`quarry index pow\` (indexPow, every rollup) into an empty PostgreSQL database: **${fmt(x.backfill.blocksPerSecond)} blocks/s** sustained over the slice (${x.backfill.seconds} s), so **${fmt(x.projected.blocks)} blocks in ${x.projected.minutes} min** (target ≥ ${fmt(x.mainnetTarget.blocksPerSecond)} blocks/s, ≤ ${x.mainnetTarget.minutes} min: **${x.mainnetTarget.pass ? 'PASS' : 'FAIL'}**). The node alone serves ${fmt(x.serveRate.before)} blocks/s before and ${fmt(x.serveRate.after)} after (GetBlockByNumber at the indexer's concurrency, nothing written): the backfill runs at ${x.ratio} of it.`,
  );
  md.line();
  md.line(`Load average ${x.loadAverage.before.join(' / ')} before, ${x.loadAverage.after.join(' / ')} after; during the backfill the 1-minute average was ${x.loadDuringBackfill.mean} on the mean (max ${x.loadDuringBackfill.max}, ${x.loadDuringBackfill.samples} samples).`);
  md.line();
  const c = x.split.cpuSeconds;
  md.line(`CPU seconds during the backfill: node ${c.node}, indexer ${c.indexer}, PostgreSQL ${c.postgres ?? '?'}, the rest of the machine ${c.rest} (of ${Math.round(x.backfill.seconds * 2)} on two cores).`);
  md.line();
  if (x.split.events.length > 0) {
    md.line('The backfill, phase by phase (the pipeline\'s log; a phase ends at the line that names it):');
    md.line();
    let previous = 0;
    md.table(
      ['ends at (s)', 'phase', 'took (s)', 'logged ms'],
      x.split.events.map((e) => {
        const row = [String(e.at), e.msg, String(Math.round((e.at - previous) * 100) / 100), e.ms === undefined ? '' : fmt(e.ms)];
        previous = e.at;
        return row;
      }),
    );
  }
  if (x.split.store.length > 0) {
    md.line("The store's time by query label (statements of every connection, summed: above the wall time where they overlap):");
    md.line();
    md.table(['label', 'ms', 'calls'], x.split.store.map((q) => [q.label, fmt(q.ms), fmt(q.count)]));
  }
}
