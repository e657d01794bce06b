/**
 * A small generated world for the analytics tests: both chains over a few days, with reorgs,
 * every transaction kind, exchanges, staking and the migration. Loaded through the real pipeline;
 * the tests' expected figures come from `canonicalBlocks`, the generator's own blocks (the last
 * one yielded at each height), never from the store.
 */
import type { ChainId } from '../../src/chain/chains.ts';
import type { CanonicalBlock } from '../../src/chain/model.ts';
import { loadSyntheticWorld } from '../../src/ingest/load-synthetic.ts';
import { collect, createSyntheticWorld, type SyntheticOptions, type SyntheticWorld } from '../../src/sources/synthetic/index.ts';
import { snapshotSeed, type SnapshotSeed } from './snapshots.ts';
import { utcDay } from './utc-day.ts';

export const ANALYTICS_WORLD: SyntheticOptions = {
  seed: 11, end: new Date('2026-03-01T15:00:00Z'), powDays: 6, posDays: 4, scale: 800, reorgEvery: 150,
  // pow's rarer kinds: multi-signature addresses with spends and votes, and a reused one-time key.
  powMultiSig: 2, powOtsReuses: 1,
};

export interface AnalyticsWorld {
  world: SyntheticWorld;
  blocks: Record<ChainId, CanonicalBlock[]>;
}

/** The canonical blocks a source ends with: the last block yielded at each height, in height order. */
export async function canonicalBlocks(world: SyntheticWorld, chain: ChainId): Promise<CanonicalBlock[]> {
  const byHeight = new Map<number, CanonicalBlock | null>();
  for (const item of await collect(world[chain])) {
    if (item.kind === 'block') byHeight.set(item.block.height, item.block);
    else if (item.kind === 'undecodable') byHeight.set(item.height, null);
  }
  return [...byHeight.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, block]) => (block ? [block] : []));
}

/**
 * A generated world as a test seed: the store loaded through the real pipeline (shared between the
 * test files of a run, test/support/snapshots.ts), and the generator's own canonical blocks.
 */
export function analyticsWorld(options: SyntheticOptions): SnapshotSeed<AnalyticsWorld> {
  return snapshotSeed(
    `analytics-world ${JSON.stringify(options)}`,
    async (store) => {
      await loadSyntheticWorld(store, options);
    },
    async () => {
      const world = createSyntheticWorld(options);
      const blocks = { pow: await canonicalBlocks(world, 'pow'), pos: await canonicalBlocks(world, 'pos') };
      return { world, blocks };
    },
  );
}

/** The standard world most analytics tests use. */
export const loadAnalyticsWorld = analyticsWorld(ANALYTICS_WORLD);


/** The blocks of `blocks` grouped by UTC day, oldest day first. */
export function blocksByDay(blocks: CanonicalBlock[]): Map<string, CanonicalBlock[]> {
  const days = new Map<string, CanonicalBlock[]>();
  for (const block of blocks) {
    const day = utcDay(block.timestamp);
    if (!days.has(day)) days.set(day, []);
    days.get(day)!.push(block);
  }
  return days;
}

/** Every day from `from` to `to` inclusive. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) out.push(utcDay(t / 1000));
  return out;
}

/** The network names a test app reports (the defaults of QUARRY_POW_NETWORK and QUARRY_POS_NETWORK). */
export const NETWORK = { pow: 'mainnet', pos: 'testnet' } as const;
