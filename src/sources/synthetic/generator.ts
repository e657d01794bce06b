/**
 * What both chains' generators share: walking the heights, and wrapping each canonical block
 * with what a real node would show around it (an orphan branch before it, or a garbled answer
 * for it that a second fetch gets whole). A generator yields one segment per canonical height:
 *
 *   [orphan h, orphan h+1, ...] (a reorg forking at h, depth 1-3)   [undecodable h]   canonical h
 *
 * Orphans are generated against the state after h-1 with the ledger's journal open and undone
 * afterwards, from a random stream of their own: the canonical branch is the same whether
 * reorgs are on or off, and whether the orphans were emitted (resumed runs skip them below the
 * start height).
 */
import { emptyTx, type CanonicalBlock, type CanonicalTx, type SourceItem } from '../../chain/model.ts';
import type { ChainId } from '../../chain/chains.ts';
import type { Ledger } from './ledger.ts';
import { MAX_REORG_DEPTH, type ResolvedOptions } from './options.ts';
import { Rng } from './rng.ts';
import { EventSchedule } from './schedule.ts';

export interface Segment {
  /** The canonical height this segment ends with. */
  height: number;
  items: SourceItem[];
}

export interface ChainGenerator {
  /** The canonical height the next segment ends with. */
  readonly nextHeight: number;
  /** The next segment, or null after the last height; orphans are only built when `emit` is set. */
  next(emit: boolean): Segment | null;
}

/** Share of malformed items that are garbled answers for a whole block (the rest are set-aside items). */
const WHOLE_BLOCK_SHARE = 1 / 3;

export abstract class ChainRun implements ChainGenerator {
  protected height = 0;
  protected parentHash = '';
  protected parentTs = 0;
  /** Set while producing a block that must carry one dead-lettered transaction. */
  protected deadLetterDue = false;
  private readonly reorgs: EventSchedule;
  /** The reorgs of a live world's future (options.live), drawn after its history's end. */
  private readonly liveReorgs: EventSchedule | null;
  private readonly malformedBlocks: EventSchedule;
  private readonly malformedItems: EventSchedule;

  protected constructor(
    protected readonly chain: ChainId,
    protected readonly options: ResolvedOptions,
    protected readonly ledger: Ledger,
    protected readonly lastHeight: number,
  ) {
    const { seed, reorgEvery, malformedEvery } = options;
    this.reorgs = new EventSchedule(seed, [chain, 'reorg'], reorgEvery, 2);
    this.liveReorgs = options.live && new EventSchedule(seed, [chain, 'reorg', 'live'], options.live.reorgEvery, 2);
    this.malformedBlocks = new EventSchedule(seed, [chain, 'undecodable-block'], malformedEvery / WHOLE_BLOCK_SHARE, 2);
    this.malformedItems = new EventSchedule(seed, [chain, 'undecodable-tx'], malformedEvery / (1 - WHOLE_BLOCK_SHARE), 2);
  }

  /** Produces canonical block `height` (the next one) and applies it to the state. */
  protected abstract produce(height: number): CanonicalBlock;
  /**
   * Produces an orphan block on top of `parent` (hash and time), against the current state
   * (journal open); `previous` is the orphan before it, null for the first of the branch.
   */
  protected abstract produceOrphan(height: number, parentHash: string, parentTs: number, previous: CanonicalBlock | null, rng: Rng): CanonicalBlock;
  /** Chain-specific state outside the ledger that orphan blocks touch (restored after them). */
  protected saveVolatile(): unknown {
    return null;
  }
  protected restoreVolatile(_saved: unknown): void {}

  get nextHeight(): number {
    return this.height;
  }

  next(emit: boolean): Segment | null {
    const h = this.height;
    if (h > this.lastHeight) return null;
    const items: SourceItem[] = [];
    const reorgs = this.liveReorgs && h > 0 && this.parentTs >= this.options.live!.from ? this.liveReorgs : this.reorgs;
    if (reorgs.at(h)) {
      const depth = reorgs.draw(1, MAX_REORG_DEPTH);
      if (h + depth - 1 <= this.lastHeight) {
        if (emit) items.push(...this.orphanBranch(h, depth));
      }
    }
    const garbled = this.malformedBlocks.at(h) && h < this.lastHeight;
    this.deadLetterDue = this.malformedItems.at(h);
    const block = this.produce(h);
    // A node's answer garbled on the way: the block arrives undecodable first, whole when fetched again.
    if (garbled && emit) items.push({ kind: 'undecodable', chain: this.chain, height: h, error: 'synthetic: block body does not decode', payload: { hash: block.hash } });
    items.push({ kind: 'block', block });
    this.parentHash = block.hash;
    this.parentTs = block.timestamp;
    this.height = h + 1;
    return { height: h, items };
  }

  private orphanBranch(fork: number, depth: number): SourceItem[] {
    const rng = new Rng(this.options.seed, this.chain, 'orphan', fork);
    const saved = this.saveVolatile();
    this.ledger.openJournal();
    const items: SourceItem[] = [];
    let parentHash = this.parentHash;
    let parentTs = this.parentTs;
    let previous: CanonicalBlock | null = null;
    try {
      for (let i = 0; i < depth; i++) {
        const block: CanonicalBlock = this.produceOrphan(fork + i, parentHash, parentTs, previous, rng);
        previous = block;
        items.push({ kind: 'block', block });
        parentHash = block.hash;
        parentTs = block.timestamp;
      }
    } finally {
      this.ledger.rollback();
      this.restoreVolatile(saved);
    }
    return items;
  }
}

/**
 * The empty lists of new transactions and blocks, shared and frozen: most transactions have no
 * internal transfers, token transfers or slaves, most blocks no withdrawals, tokens or dead
 * letters, and fresh arrays for all of them are a measurable part of the generator's garbage.
 * Code that fills one assigns its own array first (`own`). Consumers must treat block contents
 * as read-only (they are, by the model's contract).
 */
export const NONE: never[] = Object.freeze([]) as unknown as never[];

/** `list` if it is already the transaction's own array, else a fresh one to fill. */
export function own<T>(list: T[]): T[] {
  return list === NONE ? [] : list;
}

/** Records a part of `block` set aside as a dead letter (something that moves no value: its item, and raw bytes). */
export function addDeadLetter(block: CanonicalBlock, hash: string, raw: string): void {
  block.deadLetters = own(block.deadLetters);
  block.deadLetters.push({ item: hash, error: 'synthetic: part of a transaction set aside', payload: { hash, raw } });
}

/** A fresh transaction with every field present; the empty lists are shared (the generator never appends to them). */
export function newTx(hash: string, index: number, type: CanonicalTx['type'], from: string): CanonicalTx {
  return emptyTx({ hash, index, type, from, internal: NONE, tokenTransfers: NONE, slaves: NONE });
}
