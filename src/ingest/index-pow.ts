/**
 * The pow indexer: blocks from a QRL node's public gRPC API through the pipeline. Without `follow`
 * it indexes up to the head seen at start; with it, it keeps following. It resumes from the
 * store's checkpoint, so it is safe to stop (or kill) at any moment. `quarry index pow` and the
 * benchmark call it. See docs/indexing-pow.md.
 */
import type { Store } from '../store/store.ts';
import { createQrlClient } from '../sources/qrl-grpc/client.ts';
import { isRetryable } from '../sources/qrl-grpc/errors.ts';
import { createQrlGrpcSource, nodeHead } from '../sources/qrl-grpc/source.ts';
import type { IngestResult } from './pipeline.ts';
import { indexFromNode, startHeight, untilReachable, type IndexerDeps } from './indexer.ts';

export const POW_SOURCE_NAME = 'qrl-grpc';
export const DEFAULT_POW_PORT = 19009;

export interface IndexPowSettings {
  /** host:port of the node's public API. */
  node: string;
  fromHeight: number | undefined;
  follow: boolean;
  /** Deepest reorg rolled back (DEFAULT_MAX_REORG_DEPTH unless told). */
  maxReorgDepth?: number;
  /** gRPC calls in flight to the node. */
  concurrency: number;
  /** Blocks fetched ahead of the one being written. */
  prefetch: number;
  pollIntervalMs: number;
}

export async function indexPow(store: Store, settings: IndexPowSettings, deps: IndexerDeps): Promise<IngestResult> {
  const { logger, signal } = deps;
  const client = createQrlClient({
    address: settings.node,
    concurrency: settings.concurrency,
    onRetry: ({ method, attempt, delayMs, error }) => logger.debug({ method, attempt, delayMs, err: error.message }, 'node call retried'),
  });
  try {
    const { from, resumed } = await startHeight(store, 'pow', POW_SOURCE_NAME, settings.fromHeight);
    if (from > 0 && !resumed) {
      // A QRL node keeps only its current state: there is no balance at H-1 to open from.
      logger.warn({ from }, 'indexing pow from above genesis: a QRL node keeps no historical state, so the balance each address held before the start height is unknown; such balances are stored as unknown and answered as null');
    }
    const head = await untilReachable('reading the head', () => nodeHead(client), isRetryable, deps);
    const source = createQrlGrpcSource({ client, follow: settings.follow, pollIntervalMs: settings.pollIntervalMs, prefetch: settings.prefetch, logger });
    signal?.addEventListener('abort', () => source.close(), { once: true });
    logger.info({ node: settings.node, from, head: head.height, follow: settings.follow }, 'indexing pow');
    return await indexFromNode(store, source, { from, fromHeight: settings.fromHeight, head: head.height, follow: settings.follow, maxReorgDepth: settings.maxReorgDepth }, deps);
  } finally {
    client.close();
  }
}
