/**
 * Plain, ordered SQL migrations (`migrations/NNNN_name.sql`), each applied once in its own
 * transaction and recorded with a checksum of what it runs: its SQL without comments. An applied
 * migration whose statements were edited afterwards is an error, not something to paper over; a
 * comment may be corrected.
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
  /** Of the statements (`withoutComments`): what the ledger records. */
  checksum: string;
  /** Of the whole file: what ledgers recorded for the migrations applied before comments were left out. */
  fileChecksum: string;
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
        checksum: sha256(withoutComments(script)),
        fileChecksum: sha256(script),
      };
    });
}

/** The migration's file name, without `.sql`. */
const fileOf = (m: Migration) => `${String(m.version).padStart(4, '0')}_${m.name}`;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The statements of a script: `--` comments (outside quotes) and blank lines removed, trailing
 * space trimmed. Block comments are not used in the migrations and count as statements.
 */
export function withoutComments(script: string): string {
  const lines: string[] = [];
  let quote: string | null = null; // the open ', " or $tag$, carried across lines
  for (const line of script.split('\n')) {
    let kept = '';
    for (let i = 0; i < line.length; i++) {
      if (quote) {
        if (line.startsWith(quote, i)) {
          kept += quote;
          i += quote.length - 1;
          quote = null;
        } else kept += line[i];
        continue;
      }
      if (line.startsWith('--', i)) break;
      const dollar = /^\$[A-Za-z_]*\$/.exec(line.slice(i));
      const open = line[i] === "'" || line[i] === '"' ? line[i]! : dollar?.[0];
      if (open) {
        quote = open;
        kept += open;
        i += open.length - 1;
      } else kept += line[i];
    }
    kept = kept.trimEnd();
    if (kept !== '' || quote) lines.push(kept);
  }
  return lines.join('\n');
}

/**
 * Migrations applied while their ledger checksum covered the whole file, and whose comments were
 * corrected since: the checksum each file had then. Every other migration's whole-file checksum is
 * still the file's own (`Migration.fileChecksum`).
 */
const EARLIER_FILE_CHECKSUMS: ReadonlyMap<number, string> = new Map([
  [34, 'eb01d2fbefab259b3ab7d628a54c916b9fbf29604ba2b1f1c065e5056ef7f99b'],
  [77, 'b437d26bfa4a5e599dd8d4338503b7096808367446eecf716de3f7f9ae7160d6'],
  [78, '0f577e91bcaf5d660e1b53e1b56f3c6c1949759567327d0f9ea1813825227ba0'],
  [79, '238dacb9b5a5b7855040f6b535ef7eedb18924d412865a541013d19f128cf897'],
]);

/** Whether a ledger's checksum is this migration's: of its statements, or of its file as ledgers recorded it before. */
function matchesLedger(migration: Migration, recorded: string): boolean {
  return recorded === migration.checksum || recorded === migration.fileChecksum || recorded === EARLIER_FILE_CHECKSUMS.get(migration.version);
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
    if (checksum !== undefined && !matchesLedger(migration, checksum)) {
      throw new Error(`migration ${fileOf(migration)} was changed after it was applied`);
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
        if (!matchesLedger(migration, existing[0].checksum)) {
          throw new Error(`migration ${fileOf(migration)} was changed after it was applied`);
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
