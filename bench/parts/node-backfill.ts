/**
 * What the anvil and pow-node parts measure alike: a node's own serve rate before and after, and
 * between them an indexer's backfill of the node's whole chain into a fresh PostgreSQL database.
 * Target: the backfill runs at least at half the serve rate.
 */
import type { IngestResult } from '../../src/ingest/pipeline.ts';
import { migrate } from '../../src/store/migrate.ts';
import { createPostgresDriver } from '../../src/store/postgres.ts';
import { createStore, type Store } from '../../src/store/store.ts';
import type { BenchServer } from '../cluster.ts';
import { loadAverage, round } from '../proc.ts';

export const NODE_BACKFILL_TARGET = 0.5;

export interface NodeBackfillFigures {
  blocks: number;
  transactions: number;
  serveRate: { before: number; after: number; mean: number };
  backfill: { seconds: number; blocksPerSecond: number; transactions: number };
  ratio: number;
  target: number;
  pass: boolean;
  loadAverage: { before: number[]; after: number[] };
}

export interface NodeBackfillRun {
  database: string;
  applicationName: string;
  /** Blocks of the node's chain (heights 0 to head). */
  blocks: number;
  /** The node's serve rate in blocks per second, measured as fast as a client can read. */
  serveRate(): Promise<number>;
  /** The backfill into `store` (migrated). */
  index(store: Store): Promise<IngestResult>;
}

/** `transactions` is the backfill's count; a caller that knows what the node holds may replace it. */
export async function measureNodeBackfill(server: BenchServer, run: NodeBackfillRun, loadBefore: number[]): Promise<NodeBackfillFigures> {
  const serveBefore = await run.serveRate();
  await server.dropDatabase(run.database);
  await server.createDatabase(run.database);
  const store = createStore(createPostgresDriver(server.urlFor(run.database), { poolSize: 4, applicationName: run.applicationName }));
  let result: IngestResult;
  let seconds: number;
  try {
    await migrate(store);
    const started = performance.now();
    result = await run.index(store);
    seconds = (performance.now() - started) / 1000;
  } finally {
    await store.close();
  }
  const serveAfter = await run.serveRate();
  await server.dropDatabase(run.database);
  const mean = (serveBefore + serveAfter) / 2;
  const blocksPerSecond = run.blocks / seconds;
  return {
    blocks: run.blocks,
    transactions: result.transactions,
    serveRate: { before: Math.round(serveBefore), after: Math.round(serveAfter), mean: Math.round(mean) },
    backfill: { seconds: round(seconds, 2), blocksPerSecond: Math.round(blocksPerSecond), transactions: result.transactions },
    ratio: round(blocksPerSecond / mean, 2),
    target: NODE_BACKFILL_TARGET,
    pass: blocksPerSecond / mean >= NODE_BACKFILL_TARGET,
    loadAverage: { before: loadBefore, after: loadAverage() },
  };
}
