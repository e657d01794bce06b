/**
 * The ingest part: the incremental pipeline (not the bulk load) on the work copy, started afresh
 * from the base. Each chain's last day is generated into memory, then written as raw rows only
 * (then deleted), through the pipeline in default batches, and one block per transaction; the
 * differences give the rollup cost per block (bench/README.md, "ingest").
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../../src/chain/chains.ts';
import type { BlockSource, CanonicalBlock, SourceItem } from '../../src/chain/model.ts';
import { ingest } from '../../src/ingest/pipeline.ts';
import { deleteRawAbove, writeRawRows } from '../../src/ingest/raw-store.ts';
import { addBlockRows, emptyRows } from '../../src/ingest/rows.ts';
import { rollupTimings } from '../../src/rollups/index.ts';
import { CHARTS } from '../../src/rollups/registry.ts';
import { createSyntheticWorld, type SyntheticWorld } from '../../src/sources/synthetic/index.ts';
import type { Store } from '../../src/store/store.ts';
import { percentile } from '../load.ts';
import { loadAverage, log, round } from '../proc.ts';
import type { TierStore } from '../stores.ts';
import type { BuildRecord } from './generate.ts';

export interface PassFigures {
  blocks: number;
  transactions: number;
  seconds: number;
  blocksPerSecond: number;
  txPerSecond: number;
}

export interface LabelFigure {
  label: string;
  /** ms per block */
  ms: number;
}

export interface ChainIngest {
  fromHeight: number;
  toHeight: number;
  /** Generating the day (the generator fast-forwards through the whole chain to reach it). */
  generateSeconds: number;
  /** The chain's transactions / generateSeconds: the generator alone, nothing stored (fast-forward skips orphans). */
  generatorTxPerSecond: number;
  rawOnly: PassFigures;
  pipeline: PassFigures & { reorgs: number; rollupSqlSeconds: number; closeDaysSeconds: number; topLabels: LabelFigure[] };
  /** (pipeline − raw rows only) / blocks, default batches. */
  rollupMsPerBlock: number;
  live: {
    blocks: number;
    transactions: number;
    rawMsPerBlock: { mean: number; p50: number; p99: number };
    pipelineMsPerBlock: { mean: number; p50: number; p99: number };
    rollupMsPerBlock: number;
    /** Where a followed block's time goes: the largest statement labels. */
    topLabels: LabelFigure[];
    /** ms per followed block in the rollups kept for each part of the API, and in the engine's own statements (day closes apart). */
    byPart?: Record<string, number>;
    /** ms per followed block in each rollup (and the engine), largest first (day closes apart). */
    byRollup?: LabelFigure[];
    /** The charts' day closes the followed blocks crossed (midnights): how many, and ms per close, per part and per chart. */
    dayClose?: DayCloseFigures;
  };
}

export interface IngestFigures {
  store: string;
  /** Copying the base to the work copy. */
  copySeconds: number;
  chains: Record<ChainId, ChainIngest>;
  /** Both chains: transactions per second of the pipeline, default batches. */
  txPerSecond: number;
  loadAverage: { before: number[]; after: number[] };
}

/** Reorgs are at most this deep: a block followed by this many blocks, each on the one before, is canonical. */
const LOOK_AHEAD = 4;

export async function measureIngest(target: TierStore, build: BuildRecord): Promise<IngestFigures> {
  const before = loadAverage();
  const name = `${target.tier.name}/${target.kind}`;
  log(`${name}: copying the base to ${target.where('work')}`);
  const started = performance.now();
  await target.copyBase();
  const copySeconds = round((performance.now() - started) / 1000, 1);
  const world = createSyntheticWorld(target.tier.world);
  const store = await target.open('work');
  try {
    const chains = {} as Record<ChainId, ChainIngest>;
    for (const chain of ['pow', 'pos'] as const) chains[chain] = await measureChain(target, store, world, chain, build);
    const txs = chains.pow.pipeline.transactions + chains.pos.pipeline.transactions;
    const secs = chains.pow.pipeline.seconds + chains.pos.pipeline.seconds;
    return { store: target.kind, copySeconds, chains, txPerSecond: Math.round(txs / secs), loadAverage: { before, after: loadAverage() } };
  } finally {
    await store.close();
  }
}

/**
 * Makes sure the work copy holds the whole world (for the parts that read it when the ingest part
 * did not run): a copy of the base completed by the pipeline, unmeasured.
 */
export async function ensureWork(target: TierStore): Promise<void> {
  const world = createSyntheticWorld(target.tier.world);
  if (await target.exists('work')) {
    const store = await target.open('work');
    try {
      if ((await storedTip(store, 'pow'))?.height === world.lastHeight.pow && (await storedTip(store, 'pos'))?.height === world.lastHeight.pos) return;
    } finally {
      await store.close();
    }
  }
  log(`${target.tier.name}/${target.kind}: preparing ${target.where('work')} (the base and its last day)`);
  // In a single copy the base is completed where it is (copyBase only clears a stale work copy).
  await target.copyBase();
  const store = await target.open('work');
  try {
    for (const chain of ['pow', 'pos'] as const) await ingest(store, world[chain], {});
  } finally {
    await store.close();
  }
}

async function measureChain(target: TierStore, store: Store, world: SyntheticWorld, chain: ChainId, build: BuildRecord): Promise<ChainIngest> {
  const chainTransactions = build.facts.transactions[chain];
  const name = `${target.tier.name}/${target.kind} ${chain}`;
  const base = await storedTip(store, chain);
  if (!base) throw new Error(`${name}: the base holds no blocks`);
  if (base.height !== build.baseHeights[chain]) {
    throw new Error(`${name}: the work copy ends at ${base.height}, not at the base's ${build.baseHeights[chain]}` + (target.singleCopy ? ' (the single copy was completed by an earlier run: --rebuild to measure the ingest part again)' : ''));
  }
  log(`${name}: generating blocks ${base.height + 1}-${world.lastHeight[chain]}`);
  let started = performance.now();
  const items: SourceItem[] = [];
  for await (const item of world[chain].blocks(base.height + 1)) items.push(item);
  const generateSeconds = (performance.now() - started) / 1000;
  const first = items[0];
  if (first?.kind !== 'block' || first.block.height !== base.height + 1 || first.block.parentHash !== base.hash) {
    throw new Error(`${name}: the generated day does not continue the base at ${base.height}`);
  }

  // Split into a batched part and a followed part where no reorg straddles the split.
  const canonical = canonicalChain(items);
  const split = splitIndex(items, world.lastHeight[chain] - target.tier.live[chain] + 1);
  const batchedItems = items.slice(0, split + 1);
  const liveItems = items.slice(split + 1);
  const splitHeight = (items[split] as Extract<SourceItem, { kind: 'block' }>).block.height;
  const batchedBlocks = canonical.filter((b) => b.height <= splitHeight);
  const liveBlocks = canonical.filter((b) => b.height > splitHeight);
  const figures = (seconds: number, list: CanonicalBlock[]): PassFigures => {
    const transactions = list.reduce((n, b) => n + b.transactions.length, 0);
    return { blocks: list.length, transactions, seconds: round(seconds, 3), blocksPerSecond: Math.round(list.length / seconds), txPerSecond: Math.round(transactions / seconds) };
  };

  // 1. Raw rows only.
  started = performance.now();
  for (const batch of batches(batchedBlocks, 1000, 20_000)) await writeRaw(store, batch);
  const rawOnly = figures((performance.now() - started) / 1000, batchedBlocks);
  const rawTimes: number[] = [];
  for (const block of liveBlocks) {
    const t = performance.now();
    await writeRaw(store, [block]);
    rawTimes.push(performance.now() - t);
  }
  await store.transaction('bench.ingest.raw_delete', (tx) => deleteRawAbove(tx, chain, base.height));

  // 2. The pipeline, default batches.
  let snapshot = labelTotals(store);
  started = performance.now();
  const result = await ingest(store, replay(world[chain], batchedItems), {});
  const pipelineSeconds = (performance.now() - started) / 1000;
  let after = labelTotals(store);
  const pipeline = {
    ...figures(pipelineSeconds, batchedBlocks),
    reorgs: result.reorgs,
    rollupSqlSeconds: round(sumSince(snapshot, after, 'rollups.') / 1000, 3),
    closeDaysSeconds: round(sumSince(snapshot, after, 'rollups.charts') / 1000, 3),
    topLabels: topLabelsSince(snapshot, after, batchedBlocks.length),
  };
  log(`${name}: ${pipeline.txPerSecond} tx/s through the pipeline (raw rows only: ${rawOnly.txPerSecond} tx/s), ${batchedBlocks.length} blocks`);

  // 3. One block per transaction.
  snapshot = labelTotals(store);
  const rollupsBefore = rollupTotals();
  const pipelineTimes = await followOneByOne(store, world[chain], liveItems);
  after = labelTotals(store);
  const end = canonical.at(-1)!;
  const tip = await storedTip(store, chain);
  if (tip?.height !== end.height || tip.hash !== end.hash) throw new Error(`${name}: the store ends at ${tip?.height} ${tip?.hash}, not at ${end.height} ${end.hash}`);
  const rawMs = summary(rawTimes);
  const pipelineMs = summary(pipelineTimes);
  log(`${name}: following, ${pipelineMs.mean} ms per block (raw rows only ${rawMs.mean} ms)`);

  return {
    fromHeight: base.height + 1,
    toHeight: end.height,
    generateSeconds: round(generateSeconds),
    generatorTxPerSecond: Math.round(chainTransactions / generateSeconds),
    rawOnly,
    pipeline,
    rollupMsPerBlock: round(((pipeline.seconds - rawOnly.seconds) * 1000) / batchedBlocks.length, 2),
    live: {
      blocks: liveBlocks.length,
      transactions: liveBlocks.reduce((n, b) => n + b.transactions.length, 0),
      rawMsPerBlock: rawMs,
      pipelineMsPerBlock: pipelineMs,
      rollupMsPerBlock: round(pipelineMs.mean - rawMs.mean, 2),
      topLabels: topLabelsSince(snapshot, after, liveBlocks.length),
      ...rollupCostsSince(rollupsBefore, liveBlocks.length),
    },
  };
}

export interface DayCloseFigures {
  /** Day closes run while following (one per midnight crossed). */
  closes: number;
  /** ms per close, every chart. */
  ms: number;
  byPart: Record<string, number>;
  byChart: LabelFigure[];
}

/** Each rollup's and chart's time and calls so far, by name. */
export type RollupTotals = Map<string, { part: string; ms: number; calls: number }>;

/** Each rollup's and chart's time so far (rollupTimings), for rollupCostsSince. */
export function rollupTotals(): RollupTotals {
  return new Map([...rollupTimings()].map(([name, t]) => [name, { part: t.part, ms: t.ms, calls: t.calls }]));
}

const CHART_NAMES = new Set(CHARTS.map((chart) => chart.name));

/**
 * The followed blocks' time in each rollup, summed per part of the API, ms per block; and apart,
 * the charts' day closes, ms per close. The issues set the two their own targets (upkeep per
 * block; the pause at midnight), and a benchmark's few dozen followed blocks crossing one
 * midnight would spread a close over far fewer blocks than a day has.
 */
export function rollupCostsSince(before: RollupTotals, blocks: number): { byPart: Record<string, number>; byRollup: LabelFigure[]; dayClose: DayCloseFigures } {
  const byPart: Record<string, number> = {};
  const byRollup: LabelFigure[] = [];
  const closeParts: Record<string, number> = {};
  const byChart: LabelFigure[] = [];
  let closes = 0;
  for (const [name, { part, ms, calls }] of rollupTotals()) {
    const spent = ms - (before.get(name)?.ms ?? 0);
    if (CHART_NAMES.has(name)) {
      closes = Math.max(closes, calls - (before.get(name)?.calls ?? 0));
      closeParts[part] = (closeParts[part] ?? 0) + spent;
      byChart.push({ label: name, ms: spent });
      continue;
    }
    const perBlock = spent / Math.max(1, blocks);
    byPart[part] = (byPart[part] ?? 0) + perBlock;
    byRollup.push({ label: name, ms: round(perBlock, 2) });
  }
  for (const part of Object.keys(byPart)) byPart[part] = round(byPart[part]!, 2);
  const perClose = (ms: number) => round(ms / Math.max(1, closes), 1);
  const dayClose: DayCloseFigures = {
    closes,
    ms: perClose(Object.values(closeParts).reduce((a, b) => a + b, 0)),
    byPart: Object.fromEntries(Object.entries(closeParts).map(([part, ms]) => [part, perClose(ms)])),
    byChart: byChart.map((c) => ({ label: c.label, ms: perClose(c.ms) })).sort((a, b) => b.ms - a.ms),
  };
  return { byPart, byRollup: byRollup.sort((a, b) => b.ms - a.ms), dayClose };
}

async function writeRaw(store: Store, blocks: CanonicalBlock[]): Promise<void> {
  await store.transaction('bench.ingest.raw', async (tx) => {
    const rows = emptyRows();
    for (const block of blocks) addBlockRows(rows, block);
    await writeRawRows(tx, rows);
  });
}

async function storedTip(store: Store, chain: ChainId): Promise<{ height: number; hash: string } | null> {
  const [row] = await store.query<{ height: number; hash: string }>('bench.ingest.tip', sql`SELECT height, hash FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1`);
  return row ? { height: Number(row.height), hash: row.hash } : null;
}

/** The blocks that remain after every reorg among `items` is applied, by height. */
function canonicalChain(items: SourceItem[]): CanonicalBlock[] {
  const chain: CanonicalBlock[] = [];
  for (const item of items) {
    if (item.kind !== 'block') continue;
    while (chain.length > 0 && chain.at(-1)!.height >= item.block.height) chain.pop();
    chain.push(item.block);
  }
  return chain;
}

/** The index of the first block at or above `height` that the chain continues without a reorg for LOOK_AHEAD blocks. */
function splitIndex(items: SourceItem[], height: number): number {
  for (let i = 0; i + LOOK_AHEAD < items.length; i++) {
    const item = items[i]!;
    if (item.kind !== 'block' || item.block.height < height) continue;
    let clean = true;
    for (let k = 1; k <= LOOK_AHEAD && clean; k++) {
      const prev = items[i + k - 1]!;
      const next = items[i + k]!;
      clean = prev.kind === 'block' && next.kind === 'block' && next.block.height === prev.block.height + 1 && next.block.parentHash === prev.block.hash;
    }
    if (clean) return i;
  }
  throw new Error(`no clean place to split at or above height ${height}`);
}

/** A source that replays generated items from memory; reorg look-ups go to the generator. */
/** Writes `items` (from `source`) one block per transaction, as when following a node: each block's ms. */
export async function followOneByOne(store: Store, source: BlockSource, items: SourceItem[]): Promise<number[]> {
  const times: number[] = [];
  let last = performance.now();
  await ingest(store, replay(source, items), {
    batchBlocks: 1,
    onProgress: () => {
      const now = performance.now();
      times.push(now - last);
      last = now;
    },
  });
  return times;
}

export function replay(source: BlockSource, items: SourceItem[]): BlockSource {
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

function labelTotals(store: Store): Map<string, number> {
  return new Map([...store.stats()].map(([label, stat]) => [label, stat.totalMs]));
}

function sumSince(before: Map<string, number>, after: Map<string, number>, prefix: string): number {
  let total = 0;
  for (const [label, ms] of after) if (label.startsWith(prefix)) total += ms - (before.get(label) ?? 0);
  return total;
}

/** The six statement labels that took the most time between two snapshots (transaction wrappers left out), ms per block. */
function topLabelsSince(before: Map<string, number>, after: Map<string, number>, blocks: number): LabelFigure[] {
  return [...after]
    .filter(([label]) => !label.endsWith('(transaction)'))
    .map(([label, ms]) => ({ label, ms: round((ms - (before.get(label) ?? 0)) / Math.max(1, blocks), 2) }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 6);
}

function summary(values: number[]): { mean: number; p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return { mean: round(mean, 2), p50: round(percentile(sorted, 50), 2), p99: round(percentile(sorted, 99), 2) };
}
