/**
 * The check-parent step: what a fetched block is to the chain held so far. Failure policy: a fork
 * goes to recover (recover.ts); a block above the next height stalls the chain there (nothing is
 * ever stored past a gap).
 */
import type { CanonicalBlock } from '../../chain/model.ts';
import type { Tip } from './queue.ts';
import { stallAt, type StallAt } from './stall.ts';

/** `extends`: to be accepted; `replay`: the block held at its height, skipped; `fork`: to recover from. */
export type Verdict = { kind: 'extends' } | { kind: 'replay' } | { kind: 'fork' } | StallAt;

const EXTENDS = { kind: 'extends' } as const;
const REPLAY = { kind: 'replay' } as const;
const FORK = { kind: 'fork' } as const;

/**
 * `tip`: the last block accepted; `nextHeight`: the height due next (after the tip, or where the
 * run was told to start); `hashAt`: the hash held at a height (queued, in flight or stored).
 */
export async function checkParent(
  block: CanonicalBlock,
  tip: { height: number; hash: string } | null,
  nextHeight: number,
  hashAt: (height: number) => Promise<string | undefined>,
  sourceName: string,
): Promise<Verdict> {
  if (tip && block.height <= tip.height) return (await hashAt(block.height)) === block.hash ? REPLAY : FORK;
  if (tip && block.height === tip.height + 1 && block.parentHash !== tip.hash) return FORK;
  if (block.height > nextHeight) return stallAt(nextHeight, `${sourceName} gave block ${block.height} where ${nextHeight} was due`);
  return EXTENDS;
}

/** The height the next block must have: after the tip, or where the run was told to start. */
export function nextHeight(tip: Tip | null, fromHeight: number | undefined): number {
  return tip ? tip.height + 1 : (fromHeight ?? 0);
}
