/**
 * The pow chain's BlockSource over a QRL node's public gRPC API.
 *
 * Per block one call, GetBlockByNumber; up to `prefetch` blocks are in flight at once (the client
 * bounds the calls on the wire) and they are yielded in height order. The head comes from
 * GetNodeState (height and hash in one answer). The pipeline's reorg protocol (see BlockSource)
 * is served by `hashAt` and `blockAt`; the source shows the pipeline every reorg it notices:
 * - a fetched block whose parent is not the block yielded before it: the prefetched window is
 *   dropped and the block now at that height is yielded (the pipeline then walks back);
 * - while following, a head at the last yielded height with another hash, or below it: the block
 *   now at the head is yielded at once (so a reorg to a branch of equal height is seen when it
 *   happens, not a block later);
 * - at start, when the node is not ahead of the stored tip, the block now at the tip's height.
 */
import type { Logger } from 'pino';
import type { BlockSource, SourceItem } from '../../chain/model.ts';
import { blockSize, type QrlClient } from './client.ts';
import { decodeBlock } from './decode.ts';
import { isRetryable, message, NodeCallError, NodeDataError } from './errors.ts';
import { u64 } from './proto.ts';
import * as grpc from '@grpc/grpc-js';

export interface QrlGrpcSourceOptions {
  client: QrlClient;
  /** Keep following the head after reaching it (default: stop at the head seen at start). */
  follow?: boolean;
  /** Stop after this height. */
  toHeight?: number;
  /** How often to ask for the head while following. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Blocks fetched ahead of the one being yielded. Default 64. */
  prefetch?: number;
  logger?: Logger;
}

export interface QrlGrpcSource extends BlockSource {
  /** Stops fetching: the iterator ends at its next step. */
  close(): void;
}

export interface NodeHead {
  height: number;
  hash: string;
}

/** The node's head: height and hash of its last block (GetNodeState). */
export async function nodeHead(client: QrlClient): Promise<NodeHead> {
  const { message: answer } = await client.call('GetNodeState', {});
  const info = answer.info;
  if (!info) throw new NodeDataError('GetNodeState.info', 'missing');
  const height = u64(info.block_height);
  const hash = info.block_last_hash instanceof Uint8Array ? Buffer.from(info.block_last_hash).toString('hex') : '';
  if (height > BigInt(Number.MAX_SAFE_INTEGER)) throw new NodeDataError('GetNodeState.info.block_height', 'too large');
  return { height: Number(height), hash };
}

/** The node does not have the block (yet, or any more). */
function isMissing(error: unknown): boolean {
  return error instanceof NodeCallError && (error.code === grpc.status.NOT_FOUND || error.code === grpc.status.OUT_OF_RANGE);
}

export function createQrlGrpcSource(options: QrlGrpcSourceOptions): QrlGrpcSource {
  const { client } = options;
  const log = options.logger;
  const follow = options.follow ?? false;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const prefetch = Math.max(1, options.prefetch ?? 64);
  let closed = false;
  let wake: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
      wake = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
    });

  /** Runs `fn` until it succeeds or fails for good; waits out a node that is down. */
  async function patiently<T>(what: string, fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (closed || !isRetryable(error)) throw error;
        const delay = Math.min(30_000, 500 * 2 ** Math.min(attempt - 1, 6));
        log?.warn({ err: message(error), attempt, delayMs: delay }, `${what}: retrying`);
        await sleep(delay);
      }
    }
  }

  async function fetchOnce(height: number): Promise<SourceItem | null> {
    let answer;
    try {
      answer = await client.call('GetBlockByNumber', { block_number: height });
    } catch (error) {
      if (isMissing(error)) return null;
      if (error instanceof NodeDataError) return { kind: 'undecodable', chain: 'pow', height, error: error.message, payload: error.payload ?? null };
      throw error;
    }
    if (!answer.message.block) return null;
    try {
      return { kind: 'block', block: decodeBlock(answer.message.block, height, blockSize(answer)) };
    } catch (error) {
      if (!(error instanceof NodeDataError)) throw error;
      return { kind: 'undecodable', chain: 'pow', height, error: error.message, payload: answer.bytes.toString('base64') };
    }
  }

  /** A block, waiting out transient failures; null when the node does not have it (after a few looks). */
  async function fetchItem(height: number): Promise<SourceItem | null> {
    for (let looks = 1; ; looks++) {
      const item = await patiently(`block ${height}`, () => fetchOnce(height));
      if (item !== null || looks >= 3 || closed) return item;
      await sleep(100 * looks);
    }
  }

  const hashOf = (item: SourceItem | null): string | null => (item?.kind === 'block' ? item.block.hash : null);

  async function* blocks(fromHeight: number): AsyncGenerator<SourceItem> {
    let next = fromHeight;
    const state: { last: { height: number; hash: string } | null } = { last: null };
    let target = options.toHeight ?? Infinity;
    let started = false;
    let caughtUpSent = false;

    const emit = (item: SourceItem): SourceItem => {
      state.last = item.kind === 'block' ? { height: item.block.height, hash: item.block.hash } : null;
      if (item.kind !== 'caught-up') next = (item.kind === 'block' ? item.block.height : item.height) + 1;
      caughtUpSent = false;
      return item;
    };

    while (!closed) {
      const head = await patiently('head', () => nodeHead(client));
      if (!started) {
        if (!follow) target = Math.min(target, head.height);
        if (fromHeight > 0 && head.height < fromHeight) {
          const item = await fetchItem(Math.min(head.height, fromHeight - 1));
          if (item) {
            yield emit(item);
            next = fromHeight;
          }
        }
        started = true;
      } else if (state.last !== null && (head.height < state.last.height || (head.height === state.last.height && head.hash !== state.last.hash))) {
        log?.info({ height: head.height, hash: head.hash, indexedHash: state.last.hash }, 'the node reorganised below the indexed tip');
        const item = await fetchItem(head.height);
        if (item) yield emit(item);
        continue;
      }

      const end = Math.min(head.height, target);
      if (next <= end) {
        yield* range(next, end);
        continue;
      }
      if (!caughtUpSent) {
        caughtUpSent = true;
        yield { kind: 'caught-up' };
      }
      if (next > target) return;
      await sleep(pollIntervalMs);
    }

    async function* range(from: number, to: number): AsyncGenerator<SourceItem> {
      const window = new Map<number, Promise<SourceItem | null>>();
      let fetchNext = from;
      const fill = (height: number) => {
        while (fetchNext <= to && fetchNext < height + prefetch && !closed) {
          const pending = fetchItem(fetchNext);
          pending.catch(() => undefined);
          window.set(fetchNext++, pending);
        }
      };
      try {
        for (let height = from; height <= to && !closed; height++) {
          fill(height);
          const item = await window.get(height)!;
          window.delete(height);
          if (item === null) return; // the chain got shorter: ask for the head again
          if (item.kind === 'block' && state.last !== null && state.last.height === height - 1 && item.block.parentHash !== state.last.hash) {
            log?.info({ height }, 'the node reorganised during the backfill');
            const fresh = await fetchItem(height);
            if (fresh) yield emit(fresh);
            return;
          }
          yield emit(item);
        }
      } finally {
        window.clear();
      }
    }
  }

  return {
    chain: 'pow',
    name: 'qrl-grpc',
    blocks,
    async hashAt(height) {
      return hashOf(await fetchItem(height));
    },
    async blockAt(height) {
      return fetchItem(height);
    },
    // A QRL node keeps only its current state: no balance at a past height, so every opening is unknown.
    async openingBalances(addresses) {
      return new Map(addresses.map((address) => [address, null]));
    },
    close() {
      closed = true;
      wake?.();
    },
  };
}
