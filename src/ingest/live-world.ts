/**
 * A live generated world (the living demo) followed as an indexer follows its nodes: each chain's
 * blocks, released on the world's clock (sources/synthetic/paced.ts), go through `indexFromNode`,
 * the node indexers' own run (the followed pipeline: raw rows, rollups, day closes, events,
 * reorgs); the node tips move as blocks are released, the next block's transactions are the
 * pending list (read as a following indexer reads a node's pool), and each day the world's clock
 * closes brings its staking figures, as a beacon sync would. A restart resumes from the store's checkpoints.
 */
import sql from 'sql-template-tag';
import type { Logger } from 'pino';
import { CHAINS, type ChainId } from '../chain/chains.ts';
import { message } from '../sources/node-errors.ts';
import { createPacedSource, createWorldPoolReader, type WorldClock } from '../sources/synthetic/paced.ts';
import type { SyntheticWorld } from '../sources/synthetic/index.ts';
import type { Store } from '../store/store.ts';
import { writeStaking } from './curated.ts';
import { closedStaking } from './load-synthetic.ts';
import { DEFAULT_MAX_REORG_DEPTH, indexFromNode, startHeight, StoppedError } from './indexer.ts';
import { nodeTipRecorder } from './node-tip.ts';
import { DEFAULT_PENDING_INTERVAL_MS, followPending } from './pending.ts';
import { sleep } from './sleep.ts';

export interface LiveWorld {
  /** Stops both chains (at their next wait or write) and the staking upkeep; resolves when they have. */
  stop(): Promise<void>;
}

/** How often the staking upkeep looks for a day the world's clock has closed (wall milliseconds). */
const STAKING_EVERY_MS = 5_000;

/**
 * Follows `world`'s chains (or those of `chains`: the demo follows pos while pow still loads) on
 * `clock` from where the store holds them; the staking upkeep comes with pos.
 */
export function followLiveWorld(store: Store, world: SyntheticWorld, clock: WorldClock, logger: Logger, chains: readonly ChainId[] = CHAINS): LiveWorld {
  const controller = new AbortController();
  const signal = controller.signal;
  const sources = chains.map((chain) => {
    const recordTip = nodeTipRecorder(store, chain, logger);
    return createPacedSource(world[chain], clock, (height) => recordTip({ height }));
  });
  const follow = async (chain: ChainId, index: number) => {
    const source = sources[index]!;
    const { from } = await startHeight(store, chain, source.name, undefined);
    await indexFromNode(store, source, { from, fromHeight: undefined, head: from - 1, follow: true, maxReorgDepth: DEFAULT_MAX_REORG_DEPTH[chain] }, { logger, signal });
  };
  const pools = sources.map((source) => followPending(store, createWorldPoolReader(source), { logger, intervalMs: DEFAULT_PENDING_INTERVAL_MS, signal }));
  for (const pool of pools) pool.start();
  const runs = [...chains.map((chain, i) => follow(chain, i)), ...(chains.includes('pos') ? [keepStaking(store, world, clock, signal, logger)] : [])].map((run) =>
    run.catch((error: unknown) => {
      if (signal.aborted || error instanceof StoppedError) return;
      logger.error({ err: message(error) }, 'the demo chains stopped');
    }),
  );
  return {
    async stop() {
      controller.abort();
      for (const source of sources) source.close();
      await Promise.all([...runs, ...pools.map((pool) => pool.done())]);
    },
  };
}

/**
 * The world's staking figures of every day its clock has closed and the store lacks, and the
 * validators as they stand at the end of the last of them.
 */
export async function writeClosedStakingDays(store: Store, world: SyntheticWorld, now: number): Promise<number> {
  const [row] = await store.query<{ day: string | null }>('demo.staking.last_day', sql`SELECT max(day)::text AS day FROM staking_daily WHERE chain = 'pos'`);
  const { daily, validators } = closedStaking(world, now, row?.day ?? null);
  if (daily.length === 0) return 0;
  await store.transaction('demo.staking', (tx) => writeStaking(tx, daily, validators));
  return daily.length;
}

async function keepStaking(store: Store, world: SyntheticWorld, clock: WorldClock, signal: AbortSignal, logger: Logger): Promise<void> {
  while (!signal.aborted) {
    try {
      await writeClosedStakingDays(store, world, clock.now());
    } catch (error) {
      if (signal.aborted) return;
      logger.warn({ err: message(error) }, 'demo staking figures not written; trying again');
    }
    await sleep(STAKING_EVERY_MS, signal);
  }
}
