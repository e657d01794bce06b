/**
 * Loads a generated two-chain world into an empty store: both chains through the ingest pipeline
 * as a bulk load, then the curated data and staking figures that come with them.
 */
import { setImmediate } from 'node:timers/promises';
import type { Logger } from 'pino';
import { CHAINS, type ChainId } from '../chain/chains.ts';
import type { BlockSource } from '../chain/model.ts';
import type { Store } from '../store/store.ts';
import { createSyntheticWorld, type SyntheticOptions, type SyntheticWorld } from '../sources/synthetic/index.ts';
import { writeChainNetwork } from '../store/chain-network.ts';
import { analyzeAfterLoad, beginBulkLoad, closeChainDays, narrowIndexesTo, type FinishStep, type StepHooks } from './bulk.ts';
import type { ChainLoads } from './loading.ts';
import { importCurated, writeCurated, writeStaking } from './curated.ts';
import { formatLabelsFile, parseLabelsFile, type CuratedRecord } from './labels-file.ts';
import { ingest, type IngestProgress } from './pipeline.ts';
import { recordNodeTip } from './node-tip.ts';
import { DAY_SECONDS, formatDay } from '../time.ts';

export interface LoadReport {
  world: SyntheticWorld;
  chains: Record<ChainId, IngestProgress>;
  /** Seconds spent generating and writing raw rows, per chain, and building rollups and indexes. */
  seconds: { pow: number; pos: number; finish: number; total: number };
}

/**
 * The steps of a load, in order: generating and writing each chain's blocks (counted in blocks),
 * its last batch and its rollups, the curated data and staking figures, finishing the bulk load
 * (bulk.ts), and importing the labels.
 */
export type LoadStep = 'pow' | 'pow rollups' | 'pos' | 'pos rollups' | 'curated' | FinishStep | 'labels';

export interface LoadHooks extends StepHooks<LoadStep> {
  logger?: Logger;
  /** Called as blocks are written, with the chain's expected last height. */
  onProgress?: (progress: IngestProgress, lastHeight: number) => void;
  /** Coarser than onStep: each chain's blocks, then everything after them. */
  onPhase?: (phase: 'pow' | 'pos' | 'rollups') => void;
  /** What each chain's pipeline reads instead of the whole generated chain (the benchmark stops short of the end). */
  source?: (world: SyntheticWorld, chain: ChainId) => BlockSource;
}

/**
 * Loads the world of `options` (or a world already created) into an empty store: a live world
 * (SyntheticOptions.live) up to the end of its history, with the staking days closed by then.
 */
export async function loadSyntheticWorld(store: Store, options: SyntheticOptions | SyntheticWorld, hooks: LoadHooks = {}): Promise<LoadReport> {
  const started = performance.now();
  const world = 'lastHeight' in options ? options : createSyntheticWorld(options);
  const load = loadOf(world);
  const bulk = await beginBulkLoad(store, hooks.logger);
  const chains = {} as Record<ChainId, IngestProgress>;
  const seconds = { pow: 0, pos: 0, finish: 0, total: 0 };
  for (const chain of ['pow', 'pos'] as const) {
    const t = performance.now();
    chains[chain] = await loadChain(store, world, chain, load.last[chain], hooks);
    seconds[chain] = (performance.now() - t) / 1000;
  }
  hooks.onPhase?.('rollups');
  const t = performance.now();
  await writeCuratedAndTips(store, world, load, CHAINS, hooks);
  await bulk.finish(hooks);
  await importLabels(store, world, CHAINS, hooks);
  seconds.finish = (performance.now() - t) / 1000;
  seconds.total = (performance.now() - started) / 1000;
  return { world, chains, seconds };
}

export interface StagedLoadHooks extends LoadHooks {
  /** Each chain's progress while it loads, for the API to answer it 503 until it is in. */
  loads: ChainLoads;
  /** pos is in whole (days, indexes, labels): the store may serve it while pow loads. */
  onPosLoaded: () => Promise<void>;
}

/**
 * While pow loads into a store that serves: blocks (and rollup delta keys) per write, so that each
 * transaction is short and the API waits little behind one; and blocks between two turns of the
 * event loop. The embedded store runs on this thread and answers with promises alone: without a
 * turn, a load that never waits on I/O would hold every request and timer until it ends.
 */
const SERVING_BATCH_BLOCKS = 20_000;
const SERVING_DELTA_KEYS = 1_000_000;
const SERVING_TURN_EVERY = 250;

/**
 * Loads a world as `loadSyntheticWorld` does, in two stages (the demo's first start): pos first,
 * whole, through a bulk load (days, indexes, analysis, labels), then `onPosLoaded`, which may serve
 * it; then pow into the store that serves, in short transactions, with the secondary indexes
 * narrowed to pos's rows meanwhile (`narrowIndexesTo`), its days closed, indexes built and labels
 * imported at the end. `loads` says which chain is loading and how far.
 * The figures are those of the one-stage load: each chain's rollups read only its own rows.
 */
export async function loadSyntheticWorldPosFirst(store: Store, world: SyntheticWorld, hooks: StagedLoadHooks): Promise<LoadReport> {
  const started = performance.now();
  const load = loadOf(world);
  const chains = {} as Record<ChainId, IngestProgress>;
  const seconds = { pow: 0, pos: 0, finish: 0, total: 0 };
  hooks.loads.begin('pos', load.last.pos);
  hooks.loads.begin('pow', load.last.pow);
  const bulk = await beginBulkLoad(store, hooks.logger);
  let t = performance.now();
  chains.pos = await loadChain(store, world, 'pos', load.last.pos, hooks);
  seconds.pos = (performance.now() - t) / 1000;
  t = performance.now();
  await writeCuratedAndTips(store, world, load, ['pos'], hooks);
  await bulk.finish(hooks);
  await importLabels(store, world, ['pos'], hooks);
  seconds.finish = (performance.now() - t) / 1000;
  hooks.loads.end('pos');
  await hooks.onPosLoaded();

  t = performance.now();
  // pow's rows go into no secondary index while it loads; pos keeps copies of its own (bulk.ts).
  const narrowed = await narrowIndexesTo(store, 'pos', hooks.logger);
  chains.pow = await loadChain(store, world, 'pow', load.last.pow, hooks, { batchBlocks: SERVING_BATCH_BLOCKS, bulkDeltaKeys: SERVING_DELTA_KEYS, turnEvery: SERVING_TURN_EVERY });
  seconds.pow = (performance.now() - t) / 1000;
  t = performance.now();
  await store.transaction('synthetic.pow_tip', (tx) => recordNodeTip(tx, 'pow', load.last.pow));
  await closeChainDays(store, ['pow'], hooks, hooks.logger);
  await narrowed.restore(hooks);
  hooks.onStep?.('analyze');
  await analyzeAfterLoad(store, hooks.logger);
  await importLabels(store, world, ['pow'], hooks);
  hooks.loads.end('pow');
  seconds.finish += (performance.now() - t) / 1000;
  seconds.total = (performance.now() - started) / 1000;
  return { world, chains, seconds };
}

/** Where a load ends: a live world's history up to its clock's start, else the whole generated chain. */
interface LoadEnd {
  liveFrom: number | null;
  last: Record<ChainId, number>;
}

function loadOf(world: SyntheticWorld): LoadEnd {
  const liveFrom = world.options.live?.from ?? null;
  return { liveFrom, last: liveFrom === null ? world.lastHeight : { pow: world.heightAt('pow', liveFrom), pos: world.heightAt('pos', liveFrom) } };
}

/** One chain's blocks up to `lastHeight` through the pipeline's bulk path (rollup deltas gathered, days left open). */
async function loadChain(
  store: Store,
  world: SyntheticWorld,
  chain: ChainId,
  lastHeight: number,
  hooks: LoadHooks & { loads?: ChainLoads },
  { turnEvery, ...batching }: { batchBlocks?: number; bulkDeltaKeys?: number; turnEvery?: number } = {},
): Promise<IngestProgress> {
  hooks.onPhase?.(chain);
  hooks.onStep?.(chain, lastHeight + 1, 'blocks');
  const source = watched(hooks.source?.(world, chain) ?? world[chain], lastHeight, hooks.onStepProgress, () => hooks.onStep?.(`${chain} rollups`), turnEvery);
  return ingest(store, source, {
    bulk: true,
    // The default delta step (3 million keys) takes the demo's pow chain in one application:
    // each application has a large fixed cost on the embedded store, even a small second one.
    ...batching,
    logger: hooks.logger,
    toHeight: world.options.live ? lastHeight : undefined,
    onProgress: (progress) => {
      hooks.loads?.progress(chain, progress.height);
      hooks.onProgress?.(progress, lastHeight);
    },
  });
}

/** The curated settings, the staking figures (with pos), and the node tips and clock of `chains`. */
async function writeCuratedAndTips(store: Store, world: SyntheticWorld, load: LoadEnd, chains: readonly ChainId[], hooks: LoadHooks): Promise<void> {
  hooks.onStep?.('curated');
  await store.transaction('synthetic.curated', async (tx) => {
    await writeCurated(tx, { labels: [], exchangeWallets: [], settings: world.curated.settings });
    if (chains.includes('pos')) {
      const staking = load.liveFrom === null ? world.staking : closedStaking(world, load.liveFrom, null);
      await writeStaking(tx, staking.daily, staking.validators);
      // The generator's pos clock: the slot time its blocks are spaced by ('blocks': what they
      // show, as the pos indexer would derive it; pow keeps its 60 s target, the default).
      await writeChainNetwork(tx, 'pos', { slotSeconds: world.options.posSlotSeconds, slotsPerEpoch: world.options.posSlotsPerEpoch, clockSource: 'blocks' });
    }
    // The generator is the chains' node: its tip is the last height it generates.
    for (const chain of chains) await recordNodeTip(tx, chain, load.last[chain]);
  });
}

/**
 * The generated venues and labels of `chains` through the operator's path: a labels file, parsed
 * and imported, which rebuilds those chains' exchange figures from the raw rows in one pass each.
 */
async function importLabels(store: Store, world: SyntheticWorld, chains: readonly ChainId[], hooks: LoadHooks): Promise<void> {
  hooks.onStep?.('labels');
  const records = parseLabelsFile(formatLabelsFile(labelRecords(world.curated))).filter((r) => chains.includes(r.chain));
  await importCurated(store, records);
}

/**
 * A live world's staking figures of the days its clock has closed at `now` (after `afterDay`, when
 * given), and its validators as they stand at the end of the last of those days.
 */
export function closedStaking(world: SyntheticWorld, now: number, afterDay: string | null): { daily: SyntheticWorld['staking']['daily']; validators: SyntheticWorld['staking']['validators'] } {
  const lastClosed = formatDay(Math.floor(now / DAY_SECONDS) * DAY_SECONDS - DAY_SECONDS);
  const daily = world.staking.daily.filter((d) => (afterDay === null || d.day > afterDay) && d.day <= lastClosed);
  return { daily, validators: daily.length === 0 ? [] : (world.staking.validatorsByDay.get(daily.at(-1)!.day) ?? []) };
}

/** The generator's labels and venue addresses as labels-file records: one per label, with the venue role of its address. */
export function labelRecords(curated: SyntheticWorld['curated']): Omit<CuratedRecord, 'line'>[] {
  const wallets = new Map(curated.exchangeWallets.map((w) => [`${w.chain}|${w.address}`, w]));
  const records: Omit<CuratedRecord, 'line'>[] = curated.labels.map((l) => {
    const w = wallets.get(`${l.chain}|${l.address}`);
    wallets.delete(`${l.chain}|${l.address}`);
    return { chain: l.chain, address: l.address, label: l.label, category: w ? 'exchange' : l.category, primary: l.isPrimary, exchange: w ? { name: w.exchange, role: w.role } : null };
  });
  for (const w of wallets.values()) {
    records.push({ chain: w.chain, address: w.address, label: w.exchange, category: 'exchange', primary: true, exchange: { name: w.exchange, role: w.role } });
  }
  return records;
}

/** Blocks reported between two progress calls while a chain is generated. */
const PROGRESS_EVERY = 2000;

/**
 * `source`, reporting the height of the blocks it yields (generated, a batch ahead of those
 * written) and when it yields its last one (at `lastHeight`, or it ends): what is left then is the
 * last batch and the rollups. With `turnEvery`, it lets the event loop run after each that many blocks.
 */
function watched(source: BlockSource, lastHeight: number, onHeight: ((height: number) => void) | undefined, onEnd: () => void, turnEvery?: number): BlockSource {
  const wrapped: BlockSource = Object.create(source) as BlockSource;
  wrapped.blocks = async function* (fromHeight: number) {
    let reported = -Infinity;
    let ended = false;
    let count = 0;
    for await (const item of source.blocks(fromHeight)) {
      if (turnEvery !== undefined && ++count % turnEvery === 0) await setImmediate();
      if (item.kind === 'block' && item.block.height - reported >= PROGRESS_EVERY) {
        reported = item.block.height;
        onHeight?.(item.block.height + 1);
      }
      // The pipeline stops at its last height without asking for more.
      if (((item.kind === 'block' && item.block.height >= lastHeight) || item.kind === 'caught-up') && !ended) {
        ended = true;
        onEnd();
      }
      yield item;
    }
    if (!ended) onEnd();
  };
  return wrapped;
}
