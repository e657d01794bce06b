/**
 * The ingest part: the incremental pipeline (src/ingest/pipeline.ts, not the bulk load) on top of
 * a loaded tier. For each chain it takes the newest stretch of blocks (a day) back out of the
 * store the way a reorg does, and ingests it again, three ways:
 *
 * 1. raw rows only: the same blocks written by the pipeline's own writer (writeRawRows), in the
 *    pipeline's default batches, without rollups — then deleted again;
 * 2. the pipeline, default batches (1000 blocks): a backfill or a catch-up;
 * 3. the pipeline one block per transaction, over the last few blocks: a node being followed.
 *
 * The blocks are generated before the clock starts and replayed from memory, so the rates are the
 * pipeline's and the store's, not the generator's. (1) vs (2) and (3) gives the rollup cost per
 * block. The database ends as it began: the whole world, up to its last block.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../src/chain/chains.ts';
import type { BlockSource, CanonicalBlock, SourceItem } from '../../src/chain/model.ts';
import { storedHashes, writeCheckpoint } from '../../src/ingest/checkpoint.ts';
import { loadBlocks } from '../../src/ingest/load-blocks.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { deleteRawAbove, writeRawRows } from '../../src/ingest/raw-store.ts';
import { addBlockRows, emptyRows } from '../../src/ingest/rows.ts';
import { RollupDeltas, revertRollups } from '../../src/rollups/index.ts';
import { createSyntheticWorld, type SyntheticWorld } from '../../src/sources/synthetic/index.ts';
import type { Store } from '../../src/store/store.ts';
import { loadAverage, log, round } from '../proc.ts';
import type { TierStore } from '../stores.ts';
import { percentile } from '../load.ts';

export interface PassFigures {
  blocks: number;
  transactions: number;
  seconds: number;
  blocksPerSecond: number;
  txPerSecond: number;
}

export interface LiveFigures {
  blocks: number;
  transactions: number;
  /** Per block, one transaction each: raw rows only, and the whole pipeline. */
  rawMsPerBlock: { mean: number; p50: number; p99: number };
  pipelineMsPerBlock: { mean: number; p50: number; p99: number };
  rollupMsPerBlock: number;
  /** Where a followed block's time goes: the largest statement labels, ms per block. */
  topLabels: { label: string; msPerBlock: number }[];
}

export interface ChainIngest {
  fromHeight: number;
  toHeight: number;
  /** Generating the stretch (the generator fast-forwards through the whole chain to reach it). */
  generateSeconds: number;
  /** Taking the stretch back out of the store (the reorg path: revert rollups, delete raw rows). */
  rollbackSeconds: number;
  rawOnly: PassFigures;
  pipeline: PassFigures & { reorgs: number; rollupSqlSeconds: number; closeDaysSeconds: number };
  /** (pipeline − raw rows only) / blocks, default batches. */
  rollupMsPerBlock: number;
  live: LiveFigures;
}

export interface IngestFigures {
  store: string;
  chains: Record<ChainId, ChainIngest>;
  /** Both chains: transactions per second of the pipeline, default batches. */
  txPerSecond: number;
  loadAverage: { before: number[]; after: number[] };
}

const SOURCE = 'synthetic';

export async function measureIngest(target: TierStore, store: Store): Promise<IngestFigures> {
  const before = loadAverage();
  const world = createSyntheticWorld(target.tier.world);
  const chains = {} as Record<ChainId, ChainIngest>;
  for (const chain of ['pow', 'pos'] as const) chains[chain] = await measureChain(target, store, world, chain);
  const txs = chains.pow.pipeline.transactions + chains.pos.pipeline.transactions;
  const secs = chains.pow.pipeline.seconds + chains.pos.pipeline.seconds;
  return { store: target.kind, chains, txPerSecond: Math.round(txs / secs), loadAverage: { before, after: loadAverage() } };
}

async function measureChain(target: TierStore, store: Store, world: SyntheticWorld, chain: ChainId): Promise<ChainIngest> {
  const name = `${target.tier.name}/${target.kind} ${chain}`;
  const lastHeight = world.lastHeight[chain];
  let tip = await storedTip(store, chain);
  if (!tip || tip.height < lastHeight) {
    // A previous run stopped between taking blocks out and putting them back.
    log(`${name}: the store ends at ${tip?.height ?? -1} of ${lastHeight}: completing it first`);
    await ingest(store, world[chain], {});
    tip = (await storedTip(store, chain))!;
  }

  const stretch = target.tier.stretch[chain];
  const lookBack = tip.height - stretch - 8;
  log(`${name}: generating blocks ${lookBack + 1}-${tip.height}`);
  let started = performance.now();
  const generated: SourceItem[] = [];
  for await (const item of world[chain].blocks(lookBack + 1)) generated.push(item);
  const generateSeconds = (performance.now() - started) / 1000;

  // Start at a canonical block whose parent is canonical: a reorg's orphans never straddle it.
  const stored = await storedHashes(store, chain, lookBack, tip.height);
  const isCanonical = (block: CanonicalBlock) => stored.get(block.height) === block.hash;
  const first = generated.findIndex((item) => item.kind === 'block' && item.block.height >= tip.height - stretch + 1 && isCanonical(item.block) && stored.get(item.block.height - 1) === item.block.parentHash);
  if (first < 0) throw new Error(`${name}: no place to start the stretch`);
  const items = generated.slice(first);
  const blocks = items.flatMap((item) => (item.kind === 'block' && isCanonical(item.block) ? [item.block] : []));
  const from = blocks[0]!.height;
  const figures = (seconds: number, list: CanonicalBlock[]): PassFigures => {
    const transactions = list.reduce((n, b) => n + b.transactions.length, 0);
    return { blocks: list.length, transactions, seconds: round(seconds, 3), blocksPerSecond: Math.round(list.length / seconds), txPerSecond: Math.round(transactions / seconds) };
  };

  log(`${name}: taking blocks ${from}-${tip.height} out (as a reorg would)`);
  const rollbackSeconds = await rollBack(store, chain, from - 1, stored.get(from - 1)!);

  // 1. Raw rows only, in the pipeline's default batches.
  started = performance.now();
  for (const batch of batches(blocks, 1000, 20_000)) {
    await store.transaction('bench.ingest.raw', async (tx) => {
      const rows = emptyRows();
      for (const block of batch) addBlockRows(rows, block);
      await writeRawRows(tx, rows);
    });
  }
  const rawOnly = figures((performance.now() - started) / 1000, blocks);
  await store.transaction('bench.ingest.raw_delete', (tx) => deleteRawAbove(tx, chain, from - 1));

  // 2. The pipeline, default batches.
  const stamp = Math.floor(Date.now() / 1000);
  const statsBefore = labelTotals(store);
  started = performance.now();
  const result = await ingest(store, replay(world[chain], items), {});
  const pipelineSeconds = (performance.now() - started) / 1000;
  const statsAfter = labelTotals(store);
  const spent = (prefix: string) => round(sumSince(statsBefore, statsAfter, prefix) / 1000, 3);
  await checkTip(store, chain, tip, name);
  const pipeline = {
    ...figures(pipelineSeconds, blocks),
    reorgs: result.reorgs,
    rollupSqlSeconds: spent('rollups.'),
    closeDaysSeconds: spent('rollups.day_metrics'),
  };
  // The stretch's reorgs were recorded when the world was built; the replay records them again.
  await store.query('bench.ingest.reorgs', sql`DELETE FROM reorgs WHERE chain = ${chain} AND height >= ${from} AND detected_ts >= ${stamp}`);
  log(`${name}: ${pipeline.txPerSecond} tx/s through the pipeline (raw rows only: ${rawOnly.txPerSecond} tx/s), ${blocks.length} blocks`);

  // 3. One block per transaction over the last blocks, without a reorg among them if possible.
  const liveCount = target.tier.live[chain];
  const liveStart = liveStartIndex(items, isCanonical, tip.height - liveCount + 1);
  const liveItems = items.slice(liveStart);
  const liveBlocks = liveItems.flatMap((item) => (item.kind === 'block' && isCanonical(item.block) ? [item.block] : []));
  const liveFrom = liveBlocks[0]!.height;
  await rollBack(store, chain, liveFrom - 1, stored.get(liveFrom - 1)!);
  const rawTimes: number[] = [];
  for (const block of liveBlocks) {
    const t = performance.now();
    await store.transaction('bench.ingest.raw', async (tx) => {
      const rows = emptyRows();
      addBlockRows(rows, block);
      await writeRawRows(tx, rows);
    });
    rawTimes.push(performance.now() - t);
  }
  await store.transaction('bench.ingest.raw_delete', (tx) => deleteRawAbove(tx, chain, liveFrom - 1));
  const liveStamp = Math.floor(Date.now() / 1000);
  const pipelineTimes: number[] = [];
  const liveBefore = labelTotals(store);
  let last = performance.now();
  await ingest(store, replay(world[chain], liveItems), {
    batchBlocks: 1,
    onProgress: () => {
      const now = performance.now();
      pipelineTimes.push(now - last);
      last = now;
    },
  });
  const liveAfter = labelTotals(store);
  await checkTip(store, chain, tip, name);
  await store.query('bench.ingest.reorgs', sql`DELETE FROM reorgs WHERE chain = ${chain} AND height >= ${liveFrom} AND detected_ts >= ${liveStamp}`);
  const topLabels = [...liveAfter]
    .filter(([label]) => !label.endsWith('(transaction)'))
    .map(([label, ms]) => ({ label, msPerBlock: round((ms - (liveBefore.get(label) ?? 0)) / liveBlocks.length, 2) }))
    .sort((a, b) => b.msPerBlock - a.msPerBlock)
    .slice(0, 6);
  const rawMs = summary(rawTimes);
  const pipelineMs = summary(pipelineTimes);
  const live: LiveFigures = {
    blocks: liveBlocks.length,
    transactions: liveBlocks.reduce((n, b) => n + b.transactions.length, 0),
    rawMsPerBlock: rawMs,
    pipelineMsPerBlock: pipelineMs,
    rollupMsPerBlock: round(pipelineMs.mean - rawMs.mean, 2),
    topLabels,
  };
  log(`${name}: following, ${pipelineMs.mean} ms per block (raw rows only ${rawMs.mean} ms)`);

  return {
    fromHeight: from,
    toHeight: tip.height,
    generateSeconds: round(generateSeconds),
    rollbackSeconds: round(rollbackSeconds, 3),
    rawOnly,
    pipeline,
    rollupMsPerBlock: round(((pipeline.seconds - rawOnly.seconds) * 1000) / blocks.length, 2),
    live,
  };
}

async function storedTip(store: Store, chain: ChainId): Promise<{ height: number; hash: string } | null> {
  const [row] = await store.query<{ height: number; hash: string }>('bench.ingest.tip', sql`SELECT height, hash FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1`);
  return row ? { height: Number(row.height), hash: row.hash } : null;
}

async function checkTip(store: Store, chain: ChainId, expected: { height: number; hash: string }, name: string): Promise<void> {
  const tip = await storedTip(store, chain);
  if (tip?.height !== expected.height || tip.hash !== expected.hash) {
    throw new Error(`${name}: after the replay the store ends at ${tip?.height} ${tip?.hash}, not ${expected.height} ${expected.hash}`);
  }
}

/** What the pipeline does on a reorg that reaches the store (pipeline.ts rollBackTo), without recording a reorg. */
async function rollBack(store: Store, chain: ChainId, ancestor: number, ancestorHash: string): Promise<number> {
  const started = performance.now();
  await store.transaction('bench.ingest.rollback', async (tx) => {
    const [tip] = await tx.query<{ height: number }>('bench.ingest.tip', sql`SELECT max(height) AS height FROM blocks WHERE chain = ${chain}`);
    const [first] = await tx.query<{ ts: number }>('bench.ingest.first_ts', sql`SELECT ts FROM blocks WHERE chain = ${chain} AND height = ${ancestor + 1}`);
    const reverted = await loadBlocks(tx, chain, ancestor + 1, Number(tip!.height));
    const deltas = new RollupDeltas(chain, null);
    for (const block of reverted) deltas.addBlock(block);
    await revertRollups(tx, deltas, ancestor, Number(first?.ts ?? 0), () => deleteRawAbove(tx, chain, ancestor));
    await writeCheckpoint(tx, chain, SOURCE, { height: ancestor, hash: ancestorHash, rollupsHeight: ancestor }, Math.floor(Date.now() / 1000));
  });
  return (performance.now() - started) / 1000;
}

/** A source that replays generated items from memory; reorg look-ups go to the generator. */
function replay(source: BlockSource, items: SourceItem[]): BlockSource {
  return {
    chain: source.chain,
    name: source.name,
    hashAt: source.hashAt?.bind(source),
    blockAt: source.blockAt?.bind(source),
    async *blocks() {
      yield* items;
    },
  };
}

function* batches(blocks: CanonicalBlock[], maxBlocks: number, maxTxs: number): Generator<CanonicalBlock[]> {
  let batch: CanonicalBlock[] = [];
  let txs = 0;
  for (const block of blocks) {
    batch.push(block);
    txs += block.transactions.length;
    if (batch.length >= maxBlocks || txs >= maxTxs) {
      yield batch;
      batch = [];
      txs = 0;
    }
  }
  if (batch.length > 0) yield batch;
}

/** The latest start at or before `height` after which no orphan comes (falls back to `height`). */
function liveStartIndex(items: SourceItem[], isCanonical: (b: CanonicalBlock) => boolean, height: number): number {
  let start = items.findIndex((item) => item.kind === 'block' && item.block.height >= height && isCanonical(item.block));
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === 'block' && !isCanonical(item.block)) {
      // An orphan: start after its branch is replaced, if that still leaves most of the blocks.
      const after = items.findIndex((it, j) => j > i && it.kind === 'block' && isCanonical(it.block) && it.block.height > item.block.height);
      if (after > start && items.length - after >= (items.length - start) / 2) start = after;
      break;
    }
  }
  return start;
}

function labelTotals(store: Store): Map<string, number> {
  return new Map([...store.stats()].map(([label, stat]) => [label, stat.totalMs]));
}

function sumSince(before: Map<string, number>, after: Map<string, number>, prefix: string): number {
  let total = 0;
  for (const [label, ms] of after) if (label.startsWith(prefix)) total += ms - (before.get(label) ?? 0);
  return total;
}

function summary(values: number[]): { mean: number; p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return { mean: round(mean, 2), p50: round(percentile(sorted, 50), 2), p99: round(percentile(sorted, 99), 2) };
}
