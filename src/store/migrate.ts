/**
 * Plain, ordered SQL migrations (`migrations/NNNN_name.sql`), each applied once in its own
 * transaction and recorded with a checksum. An applied migration that was edited afterwards is an
 * error, not something to paper over.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sql from 'sql-template-tag';
import type { Store } from './store.ts';

export interface Migration {
  version: number;
  name: string;
  script: string;
  checksum: string;
}

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));
// Any constant works; it only has to be the same for every Quarry process on one database.
const MIGRATION_LOCK = 727_146_301;

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const script = readFileSync(`${dir}/${file}`, 'utf8');
      return {
        version: Number(file.slice(0, 4)),
        name: file.slice(5, -4),
        script,
        checksum: createHash('sha256').update(script).digest('hex'),
      };
    });
}

const CREATE_LEDGER = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT    NOT NULL,
  checksum   TEXT    NOT NULL,
  applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
)`;

export interface MigrationStatus {
  applied: number[];
  pending: Migration[];
}

export async function migrationStatus(store: Store, migrations = loadMigrations()): Promise<MigrationStatus> {
  const rows = await store
    .query<{ version: number; checksum: string }>('migrations.applied', sql`SELECT version, checksum FROM schema_migrations ORDER BY version`)
    .catch((error: unknown) => {
      // 42P01: the ledger does not exist yet, so nothing is applied.
      if ((error as { code?: string }).code === '42P01') return [];
      throw error;
    });
  const applied = new Map(rows.map((row) => [Number(row.version), row.checksum]));
  for (const migration of migrations) {
    const checksum = applied.get(migration.version);
    if (checksum !== undefined && checksum !== migration.checksum) {
      throw new Error(`migration ${migration.version}_${migration.name} was changed after it was applied`);
    }
  }
  return { applied: [...applied.keys()], pending: migrations.filter((m) => !applied.has(m.version)) };
}

/** Applies every pending migration; safe to run from several processes at once. */
export async function migrate(store: Store, migrations = loadMigrations()): Promise<Migration[]> {
  await store.exec('migrations.ledger', CREATE_LEDGER);
  const applied: Migration[] = [];
  for (const migration of migrations) {
    const done = await store.transaction('migrations.apply', async (tx) => {
      if (tx.kind === 'postgres') await tx.query('migrations.lock', sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
      const existing = await tx.query<{ checksum: string }>(
        'migrations.check',
        sql`SELECT checksum FROM schema_migrations WHERE version = ${migration.version}`,
      );
      if (existing[0]) {
        if (existing[0].checksum !== migration.checksum) {
          throw new Error(`migration ${migration.version}_${migration.name} was changed after it was applied`);
        }
        return false;
      }
      await tx.exec(`migrations.${migration.name}`, migration.script);
      await tx.query(
        'migrations.record',
        sql`INSERT INTO schema_migrations (version, name, checksum) VALUES (${migration.version}, ${migration.name}, ${migration.checksum})`,
      );
      return true;
    });
    if (done) applied.push(migration);
  }
  return applied;
}
