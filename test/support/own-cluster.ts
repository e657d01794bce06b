/**
 * A PostgreSQL server of a test's own, for tests that stop and start it (outages): the run's shared
 * server (QUARRY_TEST_DATABASE_URL) must stay up for every other file.
 */
import { findPostgresBin, startLocalCluster, type LocalCluster } from '../../src/store/local-cluster.ts';

/** Why tests on an own server are skipped here, or false when they can run (node:test's `skip`). */
export function ownClusterSkip(): string | false {
  if (process.env.QUARRY_TEST_POSTGRES === 'off') return 'QUARRY_TEST_POSTGRES=off';
  if (!findPostgresBin()) return 'no PostgreSQL binaries on this machine';
  return false;
}

/** A throwaway server with the test runner's durability settings (nothing must survive a crash). */
export function startOwnCluster(): Promise<LocalCluster> {
  return startLocalCluster({ settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '50', shared_buffers: '32MB' } });
}
