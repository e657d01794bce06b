/**
 * The pow chain's BlockSource over a QRL node's public gRPC API.
 *
 * Per block one call, GetBlockByNumber; up to `prefetch` blocks are in flight at once (the client
 * bounds the calls on the wire) and they are yielded in height order. The head comes from
 * GetNodeState (height and hash in one answer). The stream, its reorg checks and the waits for a
 * node that is down are the ones the pos source uses (../node-stream.ts).
 */
import type { Logger } from 'pino';
import type { BlockSource, SourceItem } from '../../chain/model.ts';
import { blockSize, type QrlClient } from './client.ts';
import { decodeBlock } from './decode.ts';
import { isRetryable, message, NodeCallError, NodeDataError } from './errors.ts';
import { u64 } from './proto.ts';
import { createNodePacer, nodeBlocks } from '../node-stream.ts';
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
  /** Told every head the source reads from the node. */
  onHead?: (head: { height: number; hash: string }) => void;
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
  const pacer = createNodePacer({ isRetryable, describe: message, log });
  const { patiently } = pacer;

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
      if (item !== null || looks >= 3 || pacer.isClosed()) return item;
      await pacer.sleep(100 * looks);
    }
  }

  const hashOf = (item: SourceItem | null): string | null => (item?.kind === 'block' ? item.block.hash : null);
  const itself = (item: SourceItem) => item;

  const blocks = (fromHeight: number) =>
    nodeBlocks(fromHeight, {
      pacer,
      head: () => nodeHead(client),
      fetch: fetchItem,
      peek: itself,
      finish: itself,
      follow,
      toHeight: options.toHeight,
      pollIntervalMs,
      prefetch,
      log,
      onHead: options.onHead,
    });

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
    close: pacer.close,
  };
}
