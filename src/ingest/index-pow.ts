/**
 * The pow indexer: blocks from a QRL node's public gRPC API through the pipeline. Without `follow`
 * it indexes up to the head seen at start; with it, it keeps following. It resumes from the
 * store's checkpoint, so it is safe to stop (or kill) at any moment. `quarry index pow` and the
 * benchmark call it. See docs/indexing-pow.md.
 *
 * From a QRL v1 archive (`indexPowArchive`): the archive's blocks through the same pipeline up to
 * its terminal block, then a node takes over from there, or, without a node, the chain is marked
 * final at the terminal block (docs/indexing-pow.md, "From the v1 archive").
 */
import sql from 'sql-template-tag';
import { ConfigError } from '../config/env.ts';
import type { Db, Store } from '../store/store.ts';
import { ArchiveCheckError, readArchiveIndex, type ArchiveIndex } from '../sources/qrl-archive/format.ts';
import { ARCHIVE_SOURCE_NAME, createQrlArchiveSource, type ArchiveReadStats } from '../sources/qrl-archive/source.ts';
import { readCheckpoint, storedHashes } from './checkpoint.ts';
import { nodeTipRecorder, recordFinalizedHeight, recordNodeTip } from './node-tip.ts';
import { createQrlClient } from '../sources/qrl-grpc/client.ts';
import { isRetryable } from '../sources/qrl-grpc/errors.ts';
import { createQrlGrpcSource, nodeHead } from '../sources/qrl-grpc/source.ts';
import { u64 } from '../sources/qrl-grpc/proto.ts';
import type { QrlClient } from '../sources/qrl-grpc/client.ts';
import { POW_COINBASE_SENTINEL } from '../chain/chains.ts';
import type { Logger } from 'pino';
import type { IngestResult } from './pipeline.ts';
import { indexFromNode, logNodeRetry, runNodeIndexer, startHeight, untilReachable, type IndexerDeps, type NodeIndexSettings } from './indexer.ts';
import { createQrlPoolReader } from '../sources/qrl-grpc/pool.ts';

export const POW_SOURCE_NAME = 'qrl-grpc';
export const DEFAULT_POW_PORT = 19009;

/** `concurrency` counts gRPC calls; the pool read while following is GetLatestData's unconfirmed transactions. */
export interface IndexPowSettings extends NodeIndexSettings {
  /** host:port of the node's public API. */
  node: string;
  /** Blocks fetched ahead of the one being written. */
  prefetch: number;
  /**
   * Heights up to this one are final (an archive's, below the node taking over): a branch of the
   * node's that leaves the indexed chain at or below it stops the chain instead of rolling it back.
   */
  finalizedHeight?: number;
}

export async function indexPow(store: Store, settings: IndexPowSettings, deps: IndexerDeps): Promise<IngestResult> {
  const { logger, signal } = deps;
  const client = createQrlClient({
    address: settings.node,
    concurrency: settings.concurrency,
    onRetry: logNodeRetry(logger),
  });
  try {
    const final = await readPowFinal(store);
    if (final && settings.finalizedHeight === undefined) {
      throw new ConfigError([`--node: the pow chain in this store is final at height ${final.height} (the archive ${final.runId} says it ended there); a node does not extend it (run with --archive and --node to let a node take over at that height)`]);
    }
    const { from, resumed } = await startHeight(store, 'pow', POW_SOURCE_NAME, settings.fromHeight);
    if (from > 0 && !resumed) {
      // A QRL node keeps only its current state: there is no balance at H-1 to open from.
      logger.warn({ from }, 'indexing pow from above genesis: a QRL node keeps no historical state, so the balance each address held before the start height is unknown; such balances are stored as unknown and answered as null');
    }
    const head = await untilReachable('reading the head', () => nodeHead(client), isRetryable, deps);
    const grpcSource = createQrlGrpcSource({ client, follow: settings.follow, pollIntervalMs: settings.pollIntervalMs, prefetch: settings.prefetch, logger, onHead: nodeTipRecorder(store, 'pow', logger) });
    const finalized = settings.finalizedHeight;
    const source = finalized === undefined ? grpcSource : { ...grpcSource, finalizedHeight: async () => finalized };
    logger.info({ node: settings.node, from, head: head.height, follow: settings.follow }, 'indexing pow');
    const result = await runNodeIndexer(store, source, createQrlPoolReader(client, logger), { from, head: head.height }, settings, deps);
    if (!settings.follow && !signal?.aborted) await checkSentinel(store, client, logger);
    return result;
  } finally {
    client.close();
  }
}

export type SentinelCheck =
  | { status: 'same'; height: number; balance: bigint }
  | { status: 'differs'; height: number; stored: bigint; node: bigint }
  | { status: 'skipped'; why: string };

/**
 * The coinbase sentinel's stored balance against the node's answer for its zero address (32 zero
 * bytes, which GetOptimizedAddressState lets through its address check), when the store holds the
 * chain from genesis up to the node's head and the head does not move while asking. They differ only
 * if the genesis coinbase was debited by another network's rule than the node's (docs/indexing-pow.md,
 * "Genesis"): a difference is logged as an error with both figures.
 */
export async function checkSentinel(db: Db, client: QrlClient, logger: Logger): Promise<SentinelCheck> {
  const check = await compareSentinel(db, client);
  if (check.status === 'differs') {
    logger.error(
      { height: check.height, stored: check.stored.toString(), node: check.node.toString(), difference: (check.node - check.stored).toString() },
      "the coinbase sentinel's balance differs from the node's for its zero address: the genesis coinbase was debited by another network's rule than the node's (docs/indexing-pow.md, \"Genesis\")",
    );
  } else if (check.status === 'same') {
    logger.debug({ height: check.height, balance: check.balance.toString() }, "the coinbase sentinel's balance is the node's");
  }
  return check;
}

async function compareSentinel(db: Db, client: QrlClient): Promise<SentinelCheck> {
  const [tip] = await db.query<{ height: number; hash: string; genesis: boolean }>(
    'ingest.pow_sentinel.tip',
    sql`SELECT height::int AS height, hash, EXISTS (SELECT 1 FROM blocks WHERE chain = 'pow' AND height = 0) AS genesis
        FROM blocks WHERE chain = 'pow' ORDER BY height DESC LIMIT 1`,
  );
  if (!tip || !tip.genesis) return { status: 'skipped', why: 'the store does not hold the chain from genesis' };
  const before = await nodeHead(client);
  if (before.height !== tip.height || before.hash !== tip.hash) return { status: 'skipped', why: 'the node is not at the indexed tip' };
  let answer;
  try {
    ({ message: answer } = await client.call('GetOptimizedAddressState', { address: Buffer.alloc(32) }));
  } catch (error) {
    return { status: 'skipped', why: `the node did not answer for its zero address: ${error instanceof Error ? error.message : String(error)}` };
  }
  const after = await nodeHead(client);
  if (after.hash !== before.hash) return { status: 'skipped', why: 'the node moved on while asked' };
  const node = u64(answer.state?.balance);
  const [row] = await db.query<{ balance: string }>(
    'ingest.pow_sentinel.balance',
    sql`SELECT balance::text AS balance FROM address_summary WHERE chain = 'pow' AND address = ${POW_COINBASE_SENTINEL}`,
  );
  const stored = BigInt(row?.balance ?? '0');
  return stored === node ? { status: 'same', height: tip.height, balance: node } : { status: 'differs', height: tip.height, stored, node };
}

/** Where the pow chain ends, when an archive said so (chain_settings `pow`/`final`). */
export interface PowFinal {
  height: number;
  hash: string;
  /** The archive's run id and network id. */
  runId: string;
  networkId: string;
}

const FINAL_KEY = 'final';

export async function readPowFinal(db: Db): Promise<PowFinal | null> {
  const [row] = await db.query<{ value: string }>('ingest.pow_final.read', sql`SELECT value FROM chain_settings WHERE chain = 'pow' AND key = ${FINAL_KEY}`);
  return row ? (JSON.parse(row.value) as PowFinal) : null;
}

async function writePowFinal(db: Db, final: PowFinal | null): Promise<void> {
  if (final === null) {
    await db.query('ingest.pow_final.clear', sql`DELETE FROM chain_settings WHERE chain = 'pow' AND key = ${FINAL_KEY}`);
    return;
  }
  await db.query(
    'ingest.pow_final.write',
    sql`INSERT INTO chain_settings (chain, key, value) VALUES ('pow', ${FINAL_KEY}, ${JSON.stringify(final)})
        ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value`,
  );
}

export interface IndexPowArchiveSettings {
  /** The archive's directory, or its shards.json. */
  archive: string;
  /** A node that takes over at the archive's terminal height; without one the chain is final there. */
  node?: Omit<IndexPowSettings, 'fromHeight' | 'finalizedHeight'>;
}

export interface IndexPowArchiveResult extends IngestResult {
  /** The archive's run id. */
  run: string;
  /** What reading, checking and decoding the shards took (the rest is writing). */
  read: ArchiveReadStats;
  /** Whether the chain was marked final at the terminal height (no node took over). */
  final: boolean;
}

/**
 * Indexes pow from a QRL v1 archive: shards.json checked first (a bad index stops before anything is
 * written), then the blocks of each shard, checked whole, through the pipeline (in bulk into an
 * empty store, as a first sync from a node), resuming after the checkpoint. A shard that fails a
 * check stops the chain at its first height (ChainStalledError). At the terminal block a node
 * takes over when one is given (its blocks must extend the archive's; the archive's are final),
 * else the chain is marked final there.
 */
export async function indexPowArchive(store: Store, settings: IndexPowArchiveSettings, deps: IndexerDeps): Promise<IndexPowArchiveResult> {
  const { logger, signal } = deps;
  let index: ArchiveIndex;
  try {
    index = await readArchiveIndex(settings.archive);
  } catch (error) {
    if (error instanceof ArchiveCheckError) throw new ConfigError([`--archive ${settings.archive}: ${error.message}`]);
    throw error;
  }
  const terminal = index.terminalHeight;
  const checkpoint = await readCheckpoint(store, 'pow', ARCHIVE_SOURCE_NAME);
  const stored = checkpoint === null ? null : Number(checkpoint.height);
  if (stored !== null && stored >= terminal) {
    const hash = (await storedHashes(store, 'pow', terminal, terminal)).get(terminal);
    if (hash !== index.terminalHash) {
      throw new ConfigError([`--archive ${settings.archive}: the store holds ${hash ?? 'no block'} at the archive's terminal height ${terminal}, the archive ${index.terminalHash}: another chain`]);
    }
  }
  const source = createQrlArchiveSource({ index, parent: checkpoint && stored !== null ? { height: stored, hash: checkpoint.hash } : null, logger });
  signal?.addEventListener('abort', () => source.close(), { once: true });
  const from = stored === null ? 0 : stored + 1;
  logger.info({ archive: index.dir, run: index.runId, network: index.networkId, from, terminal, shards: index.shards.length }, 'indexing pow from the v1 archive');
  const result = await indexFromNode(
    store,
    source,
    { from, fromHeight: undefined, head: terminal, follow: false, caughtUpFields: () => ({ source: ARCHIVE_SOURCE_NAME, read: source.stats }) },
    deps,
  );
  const done = { ...result, run: index.runId, read: source.stats, final: false };
  if (signal?.aborted) return done;
  if (settings.node) {
    // The node's chain must extend the archive's: the first block above the terminal one names it as parent.
    await writePowFinal(store, null);
    const after = await indexPow(store, { ...settings.node, fromHeight: undefined, finalizedHeight: terminal }, deps);
    return { ...done, height: after.height, blocks: done.blocks + after.blocks, transactions: done.transactions + after.transactions, reorgs: after.reorgs, deadLetters: done.deadLetters + after.deadLetters };
  }
  await writePowFinal(store, { height: terminal, hash: index.terminalHash, runId: index.runId, networkId: index.networkId });
  await recordNodeTip(store, 'pow', terminal);
  await recordFinalizedHeight(store, 'pow', terminal);
  logger.info({ height: terminal, hash: index.terminalHash }, 'the archive ends the pow chain: marked final at its terminal block');
  return { ...done, final: true };
}
