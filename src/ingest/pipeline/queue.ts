/**
 * The queue of accepted blocks, and the batch step: what the next write takes from it. A block is
 * accepted only on top of the tip (check-parent.ts, recover.ts); a write takes the oldest blocks,
 * all of them or (a bulk load's batches) all but the newest `holdback`, so that the shallow
 * reorgs of a chain being generated or synced are settled here instead of in the store.
 */
import type { Logger } from 'pino';
import type { ChainId } from '../../chain/chains.ts';
import type { CanonicalBlock } from '../../chain/model.ts';
import type { DeadLetter } from '../raw-store.ts';
import type { Reorg } from '../rewind.ts';
import type { RunContext } from './context.ts';

export interface Tip {
  height: number;
  hash: string;
}

export interface Queue {
  /** Accepted blocks not yet handed to a write, in height order. */
  blocks: CanonicalBlock[];
  /** The transactions of `blocks`. */
  txs: number;
  /** Dead letters of accepted blocks, written with the first batch that reaches their height. */
  letters: DeadLetter[];
  /** Rollbacks settled here (no stored block was replaced), recorded by the next write. */
  reorgs: Reorg[];
  /** The last block accepted, queued or written; null before the first. */
  tip: Tip | null;
}

/** What one write transaction stores of the queue. */
export interface Batch {
  blocks: CanonicalBlock[];
  letters: DeadLetter[];
  reorgs: Reorg[];
  /** The transactions of `blocks`. */
  txCount: number;
}

export function emptyQueue(tip: Tip | null): Queue {
  return { blocks: [], txs: 0, letters: [], reorgs: [], tip };
}

/** Queues `block` on top of the tip, with its dead letters (each logged), and makes it the tip. */
export function accept(queue: Queue, block: CanonicalBlock, chain: ChainId, log: Logger | undefined): void {
  queue.blocks.push(block);
  queue.txs += block.transactions.length;
  for (const letter of block.deadLetters) {
    queue.letters.push({ ...letter, chain, height: block.height });
    // Set aside, and said so: only what moves no value reaches here (docs/ingest.md).
    log?.warn({ chain, height: block.height, item: letter.item, err: letter.error }, 'part of a block set aside as a dead letter');
  }
  queue.tip = { height: block.height, hash: block.hash };
}

/**
 * Drops the queued blocks at `height` and above (a rollback, a stall), with their dead letters: a
 * set-aside item of an orphaned block is no part of the chain, and its height now holds another block.
 */
export function dropBlocksFrom(queue: Queue, height: number): void {
  queue.blocks = queue.blocks.filter((block) => block.height < height);
  queue.letters = queue.letters.filter((letter) => letter.height === null || letter.height < height);
  queue.txs = queue.blocks.reduce((n, b) => n + b.transactions.length, 0);
}

/** Whether the queue holds a batch's worth of blocks (above the held-back ones) or of transactions. */
export function isFull(queue: Queue, limits: Pick<RunContext, 'maxBlocks' | 'maxTxs' | 'holdback'>): boolean {
  return queue.blocks.length >= limits.maxBlocks + limits.holdback || queue.txs >= limits.maxTxs;
}

/**
 * The batch step: takes from the queue the blocks of the next write (all but the newest `keep`),
 * the dead letters up to the last of them (all, when `final`) and the reorgs settled in memory.
 */
export function takeBatch(queue: Queue, keep: number, final: boolean): Batch {
  const blocks = queue.blocks.slice(0, Math.max(0, queue.blocks.length - keep));
  const last = blocks.at(-1);
  const letters = queue.letters.filter((letter) => final || !last || letter.height === null || letter.height <= last.height);
  const reorgs = queue.reorgs;
  const txCount = blocks.reduce((n, b) => n + b.transactions.length, 0);
  queue.blocks = queue.blocks.slice(blocks.length);
  queue.txs -= txCount;
  queue.letters = queue.letters.filter((letter) => !letters.includes(letter));
  queue.reorgs = [];
  return { blocks, letters, reorgs, txCount };
}

export function isEmpty(batch: Batch): boolean {
  return batch.blocks.length === 0 && batch.letters.length === 0 && batch.reorgs.length === 0;
}
