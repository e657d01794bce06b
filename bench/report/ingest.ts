/** What the rollups cost per ingested block: batched, and followed one block at a time. */
import type { BenchResults } from '../results.ts';
import { fmt, type Markdown } from './markdown.ts';

export function renderIngest(md: Markdown, r: BenchResults): void {
  const ingests = r.tiers.filter((t) => t.ingest);
  if (ingests.length === 0) return;
  md.line('## Rollup cost per ingested block');
  md.line();
  md.line('The last day of each chain, generated into memory, then written onto the base (the world without that day). Batched: default batches of up to 1000 blocks; rollup cost = (pipeline − raw rows only) / blocks. Followed: the last blocks one per transaction, as when following a node (includes closing the day at midnight).');
  md.line();
  md.table(
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
      md.line(
        `${t.tier} ${t.store} ${c}, ms per block by statement — batched: ${x.pipeline.topLabels.map((l) => `${l.label} ${l.ms}`).join(', ')}; ` +
          `followed: ${x.live.topLabels.map((l) => `${l.label} ${l.ms}`).join(', ')}.`,
      );
      md.line();
    }
  }
}
