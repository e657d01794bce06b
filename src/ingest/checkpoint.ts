/**
 * Checkpoints: the last block each source wrote in full, with its hash, written in the same
 * transaction as the block. A run resumes after it, and the next block must name that hash as its
 * parent.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';

export interface Checkpoint {
  height: number;
  hash: string;
}

export interface StoredCheckpoint extends Checkpoint {
  /** The last block whose rollup deltas are applied. */
  rollupsHeight: number;
}

export async function readCheckpoint(db: Db, chain: ChainId, source: string): Promise<StoredCheckpoint | null> {
  const [row] = await db.query<StoredCheckpoint>(
    'ingest.checkpoint.read',
    sql`SELECT height, hash, rollups_height AS "rollupsHeight" FROM checkpoints WHERE chain = ${chain} AND source = ${source}`,
  );
  if (row) return row;
  // A store indexed by another source: its tip is where to go on, with its rollups complete.
  const [tip] = await db.query<StoredCheckpoint>(
    'ingest.checkpoint.tip',
    sql`SELECT height, hash, height AS "rollupsHeight" FROM blocks WHERE chain = ${chain} ORDER BY height DESC LIMIT 1`,
  );
  return tip ?? null;
}

export async function writeCheckpoint(db: Db, chain: ChainId, source: string, checkpoint: StoredCheckpoint, now: number): Promise<void> {
  await db.query(
    'ingest.checkpoint.write',
    sql`INSERT INTO checkpoints (chain, source, height, hash, rollups_height, updated_ts)
        VALUES (${chain}, ${source}, ${checkpoint.height}, ${checkpoint.hash}, ${checkpoint.rollupsHeight}, ${now})
        ON CONFLICT (chain, source) DO UPDATE SET height = excluded.height, hash = excluded.hash,
          rollups_height = excluded.rollups_height, updated_ts = excluded.updated_ts`,
  );
}

/** Stored hashes of `chain` at heights from..to, by height. */
export async function storedHashes(db: Db, chain: ChainId, from: number, to: number): Promise<Map<number, string>> {
  const rows = await db.query<{ height: number; hash: string }>(
    'ingest.hashes',
    sql`SELECT height, hash FROM blocks WHERE chain = ${chain} AND height BETWEEN ${from} AND ${to}`,
  );
  return new Map(rows.map((row) => [row.height, row.hash]));
}
