/**
 * What a run carries from one step to the next, in one object: the steps are functions of the
 * context (context.ts), this state and their own arguments, and each says which parts it reads
 * and changes. Nothing else survives a step.
 */
import type { CanonicalBlock } from '../../chain/model.ts';
import type { RollupDeltas } from '../../rollups/index.ts';
import { storedHashes, type StoredCheckpoint } from '../checkpoint.ts';
import { PendingEvents } from '../events.ts';
import type { Stall } from '../stalls.ts';
import type { IngestProgress, RunContext } from './context.ts';
import { emptyQueue, type Queue } from './queue.ts';

export interface RunState {
  /** Blocks accepted (check parent, recover) and not yet handed to a write (batch). */
  readonly queue: Queue;
  /** The store as it will be once the write in flight commits. */
  readonly written: Written;
  /**
   * The one write that may be in flight while the next batch is read and prepared (generation and
   * decoding in this process overlap with the store's work). Whatever reads the store's tip or
   * rolls it back, and every next write, settles it first.
   */
  inflight: InFlight | null;
  /** What written blocks still owe: a bulk load applies the rollups of many batches in one step. */
  readonly owed: Owed;
  /** Facts about the store read once per run, not asked again at each batch. */
  readonly known: Known;
  /** What committed so far: the run's result, and what `onProgress` is told after each write. */
  readonly progress: IngestProgress;
}

export interface Written {
  /** The checkpoint (null: the store holds no block of the chain for this source). */
  checkpoint: StoredCheckpoint | null;
  /** The time of the last block this run wrote (null: not known without asking the store). */
  tipTs: number | null;
  /** The chain's recorded stall, cleared by the first write that gets past it. */
  stall: Stall | null;
}

export interface InFlight {
  /** Its blocks, until it commits (the store shows them then): `heldHash` looks here first. */
  blocks: CanonicalBlock[];
  /** Resolves once it committed and its progress was reported; rejects with its failure. */
  readonly done: Promise<void>;
}

export interface Owed {
  /** Deltas of written blocks not yet applied to the rollups (bulk loads only). */
  deltas: RollupDeltas | null;
  /** The events of those blocks: logged by the write that applies their rollups (events.ts). */
  readonly events: PendingEvents;
}

export interface Known {
  /** The rollups seen holding rows of the chain (filled by applyRollups). */
  readonly filledRollups: Set<string>;
  /** The chain's first stored height, once read (rollups.ts, seedOpenings). */
  openingsStart: number | null;
}

/** The state a run starts with, on the store as `resume` found it. */
export function startState(ctx: RunContext, written: StoredCheckpoint | null, stall: Stall | null): RunState {
  return {
    queue: emptyQueue(written),
    written: { checkpoint: written, tipTs: null, stall },
    inflight: null,
    owed: { deltas: null, events: new PendingEvents(ctx.eventsKept) },
    known: { filledRollups: new Set(), openingsStart: null },
    progress: { chain: ctx.chain, height: written?.height ?? -1, blocks: 0, transactions: 0, reorgs: 0, deadLetters: 0 },
  };
}

/** Waits for the write in flight, if any; its failure is thrown here. */
export async function settle(state: RunState): Promise<void> {
  const write = state.inflight;
  state.inflight = null;
  if (write) await write.done;
}

/** The hash of the block this run holds at `height`: queued, in flight, or stored. */
export async function heldHash(ctx: RunContext, state: RunState, height: number): Promise<string | undefined> {
  const inMemory = state.queue.blocks.find((b) => b.height === height)?.hash ?? state.inflight?.blocks.find((b) => b.height === height)?.hash;
  if (inMemory !== undefined) return inMemory;
  return (await storedHashes(ctx.store, ctx.chain, height, height)).get(height);
}
