/**
 * A chain that cannot advance: the height its indexer cannot write and why (`ingest_stalls`).
 * The pipeline records a stall when a block stays undecodable after its re-fetches, when the
 * source skips a height or cannot go past one (an archive shard that fails its checks), or when a
 * fork is deeper than the reorg limit; the first write past that
 * height deletes it. /readyz and the network health read it.
 */
import sql from 'sql-template-tag';
import type { ChainId } from '../chain/chains.ts';
import type { Db } from '../store/store.ts';

export interface Stall {
  chain: ChainId;
  source: string;
  /** The height the chain cannot get past (nothing at or above it is written). */
  height: number;
  reason: string;
  /** When the indexer stopped there (Unix seconds). */
  sinceTs: number;
}

/** The run ended at a height it cannot write; the stall is recorded in the store. */
export class ChainStalledError extends Error {
  override name = 'ChainStalledError';
  /** What an operator can do about it. */
  readonly hint: string;
  constructor(readonly stall: Stall) {
    super(`${stall.chain} stalled at height ${stall.height}: ${stall.reason}`);
    this.hint = stall.source === 'qrl-archive'
      ? 'the archive does not pass its checks from that height: fetch the named shard (and shards.json) again from the release, then run the same command; it resumes there'
      : /reorg|finalized|shares no block/.test(stall.reason)
        ? 'check that the node is synced and on the expected network; if the reorg is real, raise --max-reorg-depth for one run'
        : 'check the node at that height (its logs, its version); the indexer fetches the block again and goes on once the node serves it whole';
  }
}

export async function recordStall(db: Db, stall: Stall): Promise<void> {
  await db.query(
    'ingest.stall.record',
    sql`INSERT INTO ingest_stalls (chain, source, height, reason, since_ts)
        VALUES (${stall.chain}, ${stall.source}, ${stall.height}, ${stall.reason.slice(0, 2000)}, ${stall.sinceTs})
        ON CONFLICT (chain) DO UPDATE SET source = excluded.source, height = excluded.height, reason = excluded.reason,
          since_ts = CASE WHEN ingest_stalls.height = excluded.height THEN ingest_stalls.since_ts ELSE excluded.since_ts END`,
  );
}

export async function clearStall(db: Db, chain: ChainId): Promise<void> {
  await db.query('ingest.stall.clear', sql`DELETE FROM ingest_stalls WHERE chain = ${chain}`);
}

export async function readStall(db: Db, chain: ChainId): Promise<Stall | null> {
  const [row] = await db.query<{ source: string; height: string | number; reason: string; since_ts: string | number }>(
    'ingest.stall.read',
    sql`SELECT source, height, reason, since_ts FROM ingest_stalls WHERE chain = ${chain}`,
  );
  return row ? { chain, source: row.source, height: Number(row.height), reason: row.reason, sinceTs: Number(row.since_ts) } : null;
}

/** Every stalled chain, for /readyz and the network health. */
export async function readStalls(db: Db): Promise<Map<ChainId, Stall>> {
  const rows = await db.query<{ chain: ChainId; source: string; height: string | number; reason: string; since_ts: string | number }>(
    'ingest.stall.all',
    sql`SELECT chain, source, height, reason, since_ts FROM ingest_stalls`,
  );
  return new Map(rows.map((row) => [row.chain, { chain: row.chain, source: row.source, height: Number(row.height), reason: row.reason, sinceTs: Number(row.since_ts) }]));
}
