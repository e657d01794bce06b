/**
 * What was set aside while indexing (dead letters: only parts of blocks that move no value, such
 * as the body of a pow transaction of a kind Quarry does not classify; the transaction itself is
 * stored with its sender and fee). An operator lists them, marks them resolved once looked at, or
 * retries one: the chain is rewound to just below the letter's block, so that the next indexer run
 * fetches that block and every later one again (and sets the part aside again if it still does
 * not decode). See docs/ingest.md, "Dead letters".
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Store } from '../store/store.ts';
import { readCheckpoint } from './checkpoint.ts';
import { rewindTo } from './rewind.ts';

export interface DeadLetterRow {
  id: number;
  chain: ChainId;
  source: string;
  height: number | null;
  item: string | null;
  error: string;
  createdTs: number;
  resolvedTs: number | null;
}

interface DbLetter {
  id: string;
  chain: ChainId;
  source: string;
  height: string | null;
  item: string | null;
  error: string;
  created_ts: string;
  resolved_ts: string | null;
}

const toRow = (r: DbLetter): DeadLetterRow => ({
  id: Number(r.id),
  chain: r.chain,
  source: r.source,
  height: r.height === null ? null : Number(r.height),
  item: r.item,
  error: r.error,
  createdTs: Number(r.created_ts),
  resolvedTs: r.resolved_ts === null ? null : Number(r.resolved_ts),
});

/** Letters, newest first; open ones only unless `all`. */
export async function listDeadLetters(store: Store, options: { chain?: ChainId; all?: boolean; limit?: number } = {}): Promise<DeadLetterRow[]> {
  const chain = options.chain ?? null;
  const rows = await store.query<DbLetter>(
    'dead_letters.list',
    sql`SELECT id, chain, source, height, item, error, created_ts, resolved_ts FROM dead_letters
        WHERE (${chain}::text IS NULL OR chain = ${chain}) AND (${options.all ?? false} OR resolved_ts IS NULL)
        ORDER BY id DESC LIMIT ${options.limit ?? 100}`,
  );
  return rows.map(toRow);
}

/** Marks open letters resolved; returns the ids that were open. */
export async function resolveDeadLetters(store: Store, ids: number[], now = Math.floor(Date.now() / 1000)): Promise<number[]> {
  const rows = await store.query<{ id: string }>(
    'dead_letters.resolve',
    sql`UPDATE dead_letters SET resolved_ts = ${now} WHERE id = ANY(${ids}::bigint[]) AND resolved_ts IS NULL RETURNING id`,
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

export async function deadLetter(store: Store, id: number): Promise<DeadLetterRow | null> {
  const [row] = await store.query<DbLetter>('dead_letters.one', sql`SELECT id, chain, source, height, item, error, created_ts, resolved_ts FROM dead_letters WHERE id = ${id}`);
  return row ? toRow(row) : null;
}

export interface RetryPlan {
  letter: DeadLetterRow;
  /** The height the chain is rewound to (the letter's block is fetched again, and everything after it). */
  rewindTo: number;
  /** The stored tip: blocks rewindTo+1..tip are reverted. */
  tip: number;
}

/** What retrying `id` does; null when the letter does not exist or names no block. */
export async function planRetry(store: Store, id: number): Promise<RetryPlan | null> {
  const letter = await deadLetter(store, id);
  if (!letter || letter.height === null) return null;
  const checkpoint = await readCheckpoint(store, letter.chain, letter.source);
  const tip = checkpoint ? Number(checkpoint.height) : -1;
  return { letter, rewindTo: letter.height - 1, tip };
}

/**
 * Rewinds the letter's chain to just below its block and deletes the letters of the blocks that
 * go (the next run records again whatever it still sets aside). The caller holds the chain's
 * writer lock.
 */
export async function retryDeadLetter(store: Store, plan: RetryPlan, onChunk?: (height: number) => void): Promise<void> {
  const { letter } = plan;
  if (plan.tip > plan.rewindTo) {
    await rewindTo(store, letter.chain, letter.source, plan.rewindTo, plan.tip, { onChunk: (checkpoint) => onChunk?.(checkpoint.height) });
  }
  await store.query('dead_letters.retry', sql`DELETE FROM dead_letters WHERE chain = ${letter.chain} AND height > ${plan.rewindTo}`);
}
