/**
 * What a store says about replication: whether it is a PostgreSQL standby (a streaming replica,
 * `pg_is_in_recovery()`), and how far its replay is behind what it received from its primary. The
 * API runs on a standby read-only (docs/deploy.md): it never migrates one, and checks instead that
 * the standby's schema is the one this build expects.
 */
import sql from 'sql-template-tag';
import type { Db } from './store.ts';

export type StoreRole = 'embedded' | 'primary' | 'standby';

export interface Replication {
  role: StoreRole;
  /**
   * Seconds the standby's replay is behind: 0 when it has replayed all it received, otherwise the
   * age of the last transaction it replayed. Null on a primary and on the embedded store.
   */
  lagSeconds: number | null;
  /** Bytes of WAL the standby received and has not replayed yet; null on a primary and on the embedded store. */
  lagBytes: number | null;
}

type Num = number | string | null;
const num = (value: Num | undefined): number | null => (value == null ? null : Number(value));

/** One statement, on small system functions: cheap enough for every /readyz and scrape. */
export async function readReplication(db: Db): Promise<Replication> {
  if (db.kind === 'pglite') return { role: 'embedded', lagSeconds: null, lagBytes: null };
  const [row] = await db.query<{ standby: boolean; lag_seconds: Num; lag_bytes: Num }>(
    'store.replication',
    sql`SELECT pg_is_in_recovery() AS standby,
               CASE WHEN NOT pg_is_in_recovery() THEN NULL
                    WHEN pg_last_wal_receive_lsn() IS NULL OR pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() THEN 0
                    ELSE greatest(0, extract(epoch FROM now() - pg_last_xact_replay_timestamp()))::float8 END AS lag_seconds,
               CASE WHEN NOT pg_is_in_recovery() THEN NULL
                    ELSE greatest(0, coalesce(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), 0))::float8 END AS lag_bytes`,
  );
  const standby = Boolean(row?.standby);
  return { role: standby ? 'standby' : 'primary', lagSeconds: standby ? num(row?.lag_seconds) : null, lagBytes: standby ? num(row?.lag_bytes) : null };
}

/** Whether `db` is a PostgreSQL standby, which accepts no writes. */
export async function isStandby(db: Db): Promise<boolean> {
  return (await readReplication(db)).role === 'standby';
}
