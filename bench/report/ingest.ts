/** What the rollups cost per ingested block: batched, and followed one block at a time. */
import type { BenchResults } from '../results.ts';
import type { DayCloseFigures } from '../parts/ingest.ts';
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
  const parted = ingests.filter((t) => t.ingest!.chains.pow.live.byPart);
  if (parted.length > 0) {
    md.line(
      'A followed block by part of the API: the time inside the rollups kept for each part (the Addresses API; network, fees, activity and timeline; supply and holder distribution; whales and exchanges), the engine’s delta tables and day-close check, the raw rows, and the rest (reading the tip, the checkpoint, the commit, and the day closes). ms per block. The charts’ day closes (the midnights the followed blocks crossed) are shown apart, ms per close: the issues set them their own target, and a few dozen followed blocks would spread a close over far fewer blocks than a day has.',
    );
    md.line();
    md.table(
      ['tier', 'store', 'chain', 'followed ms/block', 'raw rows', 'engine', 'addresses', 'network', 'supply', 'whales-exchanges', 'rest', 'largest rollups', 'day closes: ms each (by part)'],
      parted.flatMap((t) =>
        (['pow', 'pos'] as const).map((c) => {
          const live = t.ingest!.chains[c].live;
          const part = (name: string) => live.byPart![name] ?? 0;
          const inRollups = Object.values(live.byPart!).reduce((a, b) => a + b, 0);
          return [
            t.tier, t.store, c, live.pipelineMsPerBlock.mean, live.rawMsPerBlock.mean, part('engine'), part('addresses'),
            `**${part('network')}**`, part('supply'), `**${part('whales-exchanges')}**`,
            Math.round((live.pipelineMsPerBlock.mean - live.rawMsPerBlock.mean - inRollups) * 100) / 100,
            live.byRollup!.slice(0, 4).map((r) => `${r.label} ${r.ms}`).join(', '),
            dayCloseCell(live.dayClose),
          ];
        }),
      ),
    );
  }
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

/** Older results counted the day closes in the parts: no separate figure. */
function dayCloseCell(close: DayCloseFigures | undefined): string {
  if (!close) return 'in the parts';
  if (close.closes === 0) return 'none crossed';
  const parts = Object.entries(close.byPart).map(([part, ms]) => `${part} ${ms}`).join(', ');
  return `${close.closes} × **${close.ms}** (${parts})`;
}
