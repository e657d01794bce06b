/**
 * Whether a chain's internal transfers (value moved by nested call frames) are indexed. The pos
 * indexer run with `--no-traces` (a node without a tracer) records it in `chain_settings`, key
 * `internal_transfers`, value `{"status":"not_indexed","from_height":H}`: from height H on, the
 * store holds no internal transfers. The row stays until a traced run indexes from H or below
 * again. pow has no call frames: its state is `not_applicable`. See docs/indexing-pos.md.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from './store.ts';

export const INTERNAL_TRANSFERS_KEY = 'internal_transfers';

export const INTERNAL_TRANSFER_STATES = ['indexed', 'not_indexed', 'not_applicable'] as const;
export type InternalTransferState = (typeof INTERNAL_TRANSFER_STATES)[number];

export interface InternalTransfersCoverage {
  status: InternalTransferState;
  /** The first height indexed without them; null unless `not_indexed`. */
  notIndexedFrom: number | null;
}

export async function readInternalTransfers(db: Db, chain: ChainId): Promise<InternalTransfersCoverage> {
  if (chain !== 'pos') return { status: 'not_applicable', notIndexedFrom: null };
  const [row] = await db.query<{ value: string }>('store.internal_transfers.read', sql`SELECT value FROM chain_settings WHERE chain = ${chain} AND key = ${INTERNAL_TRANSFERS_KEY}`);
  if (!row) return { status: 'indexed', notIndexedFrom: null };
  const value = JSON.parse(row.value) as { from_height?: unknown };
  return { status: 'not_indexed', notIndexedFrom: typeof value.from_height === 'number' ? value.from_height : null };
}

/** A run from `fromHeight` indexes without internal transfers; an earlier start already recorded is kept. */
export async function recordInternalTransfersNotIndexed(db: Db, chain: ChainId, fromHeight: number): Promise<void> {
  const value = JSON.stringify({ status: 'not_indexed', from_height: fromHeight });
  await db.query(
    'store.internal_transfers.not_indexed',
    sql`INSERT INTO chain_settings (chain, key, value) VALUES (${chain}, ${INTERNAL_TRANSFERS_KEY}, ${value})
        ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value
        WHERE (chain_settings.value::jsonb->>'from_height')::bigint > ${fromHeight}`,
  );
}

/** A traced run from `fromHeight`: the hole is filled again when it starts at or below the recorded one. */
export async function recordInternalTransfersIndexedFrom(db: Db, chain: ChainId, fromHeight: number): Promise<void> {
  await db.query(
    'store.internal_transfers.indexed',
    sql`DELETE FROM chain_settings WHERE chain = ${chain} AND key = ${INTERNAL_TRANSFERS_KEY}
          AND (value::jsonb->>'from_height')::bigint >= ${fromHeight}`,
  );
}
