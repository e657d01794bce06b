/**
 * Whether the staking sync (staking-sync.ts) gets through to its beacon node, kept in pos's
 * `chain_settings`: `staking_sync_error` (JSON `{route, node, message, at}`) while the last run
 * failed, deleted by the next run that succeeds; `staking_sync_ok_ts`, when a run last succeeded
 * (Unix seconds). The network health shows both (docs/indexing-pos.md, "Staking").
 */
import sql from 'sql-template-tag';
import type { Db } from '../store/store.ts';

const ERROR_KEY = 'staking_sync_error';
const OK_KEY = 'staking_sync_ok_ts';

export interface StakingSyncError {
  /** The request that failed (`GET /qrl/v1/…`), null when the failure was not a request's. */
  route: string | null;
  /** The beacon node's URL without credentials. */
  node: string;
  message: string;
  /** When the run failed (Unix seconds). */
  at: number;
}

export interface StakingSyncStatus {
  lastSuccessTs: number | null;
  error: StakingSyncError | null;
}

export async function recordStakingSyncSuccess(db: Db, ts: number): Promise<void> {
  await db.query('ingest.staking_status.clear', sql`DELETE FROM chain_settings WHERE chain = 'pos' AND key = ${ERROR_KEY}`);
  await db.query(
    'ingest.staking_status.ok',
    sql`INSERT INTO chain_settings (chain, key, value) VALUES ('pos', ${OK_KEY}, ${String(ts)})
        ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value`,
  );
}

export async function recordStakingSyncError(db: Db, error: StakingSyncError): Promise<void> {
  await db.query(
    'ingest.staking_status.error',
    sql`INSERT INTO chain_settings (chain, key, value) VALUES ('pos', ${ERROR_KEY}, ${JSON.stringify(error)})
        ON CONFLICT (chain, key) DO UPDATE SET value = excluded.value`,
  );
}

export async function readStakingSyncStatus(db: Db): Promise<StakingSyncStatus> {
  const rows = await db.query<{ key: string; value: string }>(
    'ingest.staking_status.read',
    sql`SELECT key, value FROM chain_settings WHERE chain = 'pos' AND key IN (${ERROR_KEY}, ${OK_KEY})`,
  );
  const status: StakingSyncStatus = { lastSuccessTs: null, error: null };
  for (const { key, value } of rows) {
    if (key === OK_KEY && /^\d+$/.test(value)) status.lastSuccessTs = Number(value);
    if (key === ERROR_KEY) status.error = parseError(value);
  }
  return status;
}

function parseError(value: string): StakingSyncError {
  try {
    const parsed = JSON.parse(value) as Partial<StakingSyncError>;
    return {
      route: typeof parsed.route === 'string' ? parsed.route : null,
      node: typeof parsed.node === 'string' ? parsed.node : '',
      message: typeof parsed.message === 'string' ? parsed.message : value,
      at: typeof parsed.at === 'number' ? parsed.at : 0,
    };
  } catch {
    return { route: null, node: '', message: value, at: 0 };
  }
}
