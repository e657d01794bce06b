/**
 * Loads a generated two-chain world into an empty store: both chains through the ingest pipeline
 * as a bulk load, then the curated data and staking figures that come with them.
 */
import type { Logger } from 'pino';
import type { ChainId } from '../chain/chains.ts';
import type { BlockSource } from '../chain/model.ts';
import type { Store } from '../store/store.ts';
import { createSyntheticWorld, type SyntheticOptions, type SyntheticWorld } from '../sources/synthetic/index.ts';
import { writeChainNetwork } from '../store/chain-network.ts';
import { beginBulkLoad, type FinishStep, type StepHooks } from './bulk.ts';
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
  const bulk = await beginBulkLoad(store, hooks.logger);
  const chains = {} as Record<ChainId, IngestProgress>;
  const seconds = { pow: 0, pos: 0, finish: 0, total: 0 };
  const liveFrom = world.options.live?.from ?? null;
  const last: Record<ChainId, number> = liveFrom === null ? world.lastHeight : { pow: world.heightAt('pow', liveFrom), pos: world.heightAt('pos', liveFrom) };
  for (const chain of ['pow', 'pos'] as const) {
    hooks.onPhase?.(chain);
    hooks.onStep?.(chain, last[chain] + 1, 'blocks');
    const t = performance.now();
    const source = watched(hooks.source?.(world, chain) ?? world[chain], hooks.onStepProgress, () => hooks.onStep?.(`${chain} rollups`));
    chains[chain] = await ingest(store, source, {
      bulk: true,
      // The default step (3 million delta keys) takes the demo's pow chain in one application:
      // each application has a large fixed cost on the embedded store, even a small second one.
      logger: hooks.logger,
      toHeight: liveFrom === null ? undefined : last[chain],
      onProgress: (progress) => hooks.onProgress?.(progress, last[chain]),
    });
    seconds[chain] = (performance.now() - t) / 1000;
  }
  hooks.onPhase?.('rollups');
  hooks.onStep?.('curated');
  const t = performance.now();
  await store.transaction('synthetic.curated', async (tx) => {
    await writeCurated(tx, { labels: [], exchangeWallets: [], settings: world.curated.settings });
    const staking = liveFrom === null ? world.staking : closedStaking(world, liveFrom, null);
    await writeStaking(tx, staking.daily, staking.validators);
    // The generator is the chains' node: its tip is the last height it generates, and its pos
    // clock the slot time its blocks are spaced by ('blocks': what they show, as the pos indexer
    // would derive it; pow keeps its 60 s target, the default).
    for (const chain of ['pow', 'pos'] as const) await recordNodeTip(tx, chain, last[chain]);
    await writeChainNetwork(tx, 'pos', { slotSeconds: world.options.posSlotSeconds, slotsPerEpoch: world.options.posSlotsPerEpoch, clockSource: 'blocks' });
  });
  await bulk.finish(hooks);
  // The generated venues and labels go through the operator's path: a labels file, parsed and
  // imported, which rebuilds the exchange figures from the raw rows in one pass per chain.
  hooks.onStep?.('labels');
  await importCurated(store, parseLabelsFile(formatLabelsFile(labelRecords(world.curated))));
  seconds.finish = (performance.now() - t) / 1000;
  seconds.total = (performance.now() - started) / 1000;
  return { world, chains, seconds };
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
 * written) and when it has yielded its last one: what is left then is the last batch and the rollups.
 */
function watched(source: BlockSource, onHeight: ((height: number) => void) | undefined, onEnd: () => void): BlockSource {
  const wrapped: BlockSource = Object.create(source) as BlockSource;
  wrapped.blocks = async function* (fromHeight: number) {
    let reported = -Infinity;
    let ended = false;
    for await (const item of source.blocks(fromHeight)) {
      if (item.kind === 'block' && item.block.height - reported >= PROGRESS_EVERY) {
        reported = item.block.height;
        onHeight?.(item.block.height + 1);
      }
      if (item.kind === 'caught-up' && !ended) {
        ended = true;
        onEnd();
      }
      yield item;
    }
    if (!ended) onEnd();
  };
  return wrapped;
}
