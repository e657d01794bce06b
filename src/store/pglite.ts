/** The embedded store: PGlite (PostgreSQL compiled to WebAssembly), persisted under a directory. */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MemoryFS, PGlite, types } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { StoreLockedError } from './errors.ts';
import { checkDeadline, type Driver, type DriverConnection, type Row } from './store.ts';

// The same value shapes as the server driver: int8 as number (only counts, heights and times are
// int8; amounts are NUMERIC and stay strings), dates and timestamps as their text.
const parsers = {
  [types.INT8]: (value: string) => Number(value),
  [types.DATE]: (value: string) => value,
  [types.TIMESTAMP]: (value: string) => value,
  [types.TIMESTAMPTZ]: (value: string) => value,
};

/**
 * Server settings of the embedded store. It is one process's private database with fsync already
 * off, so the settings that exist for replicas and for torn pages after a power cut buy nothing:
 * without them a bulk load's index builds and COPYs write no WAL for what they create, and fewer
 * checkpoints interrupt it. A store on disk gets a larger buffer pool, which keeps the demo's hot
 * tables in memory; an in-memory one (tests) a smaller one than the default: its pages are in
 * memory anyway, so a miss costs a copy, and the server clears its whole pool as it starts, which
 * a test pays for every store it opens.
 */
const EMBEDDED_SETTINGS = ['wal_level=minimal', 'max_wal_senders=0', 'full_page_writes=off', 'max_wal_size=2GB', 'checkpoint_timeout=30min'];
const ON_DISK_SETTINGS = ['shared_buffers=256MB'];
const IN_MEMORY_SETTINGS = ['shared_buffers=32MB'];

/** The embedded driver, which can also write its whole database out as one tarball (a test snapshot). */
export interface PgliteDriver extends Driver {
  /**
   * The data directory as a tarball. `compact` (the default) rewrites every table first (VACUUM
   * FULL), which a database that has only ever been written by COPY into empty tables does not need.
   */
  dumpDataDir(options?: { compact?: boolean }): Promise<Blob>;
}

/**
 * Opens (creating if needed) the embedded database in `dataDir`; `undefined` keeps it in memory.
 * `loadDataDir` starts it from a tarball that `dumpDataDir` wrote; `copyOf` starts an in-memory
 * database from the files of a data directory no store has open (a test snapshot), which is left as it was.
 */
export async function createPgliteDriver(dataDir: string | undefined, options: { loadDataDir?: Blob; copyOf?: string } = {}): Promise<PgliteDriver> {
  const release = dataDir ? lockDataDir(dataDir) : () => {};
  let db: PGlite;
  try {
    db = await PGlite.create({
      dataDir,
      loadDataDir: options.loadDataDir,
      ...(dataDir === undefined ? { fs: options.copyOf === undefined ? new GrowingMemoryFS() : new MemoryCopyFS(options.copyOf) } : {}),
      extensions: { pg_trgm },
      parsers,
      postgresqlconf: [...EMBEDDED_SETTINGS, ...(dataDir ? ON_DISK_SETTINGS : IN_MEMORY_SETTINGS)],
    });
  } catch (error) {
    release();
    throw error;
  }
  await db.exec(`SET TIME ZONE 'UTC'`);

  const connection = (q: Pick<PGlite, 'query' | 'exec'>): DriverConnection => ({
    query: async (text, values) => (await q.query<Row>(text, values)).rows,
    exec: async (script) => {
      await q.exec(script);
    },
    copyFrom: async (statement, tsv) => {
      await q.query(statement.replace(/FROM STDIN$/, `FROM '/dev/blob'`), [], { blob: new Blob([tsv]) });
    },
  });
  const direct = connection(db);

  // PGlite runs one statement at a time, on this thread: the others wait their turn. They wait here,
  // in order, so that each one's deadline (store.ts, withDeadline) is checked when its turn comes,
  // not only when it was issued.
  let tail: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(run: () => Promise<T>): Promise<T> => {
    const turn = tail.then(() => {
      checkDeadline('embedded store queue');
      return run();
    });
    tail = turn.catch(() => {});
    return turn;
  };

  return {
    kind: 'pglite',
    withConnection: (fn) => inTurn(() => fn(direct)),
    withTransaction: (fn) => inTurn(() => db.transaction((tx) => fn(connection(tx)))),
    // PGlite has one session: a held "connection" is that session, and lives as long as the store.
    openSession: async () => ({
      query: (text, values) => direct.query(text, values),
      onLost: () => {},
      close: async () => {},
    }),
    close: async () => {
      await db.close();
      release();
    },
    dumpDataDir: async ({ compact = true } = {}) => {
      // Compact first: the tables' dead rows and the recycled WAL segments would otherwise be most of it.
      for (const statement of [...(compact ? ['VACUUM FULL'] : []), 'ALTER SYSTEM SET wal_recycle = off', `ALTER SYSTEM SET max_wal_size = '32MB'`, `ALTER SYSTEM SET min_wal_size = '32MB'`, 'SELECT pg_reload_conf()', 'CHECKPOINT', 'CHECKPOINT']) {
        await db.exec(statement);
      }
      return db.dumpDataDir('none');
    },
  };
}

/** The lock file of a data directory a store has open (`lockDataDir`). */
const LOCK_FILE = 'quarry.lock';

/** The parts of Emscripten's in-memory file system (MEMFS) that size a file's storage. */
interface MemfsStorage {
  resizeFileStorage(node: MemfsFile, size: number): void;
  expandFileStorage(node: MemfsFile, size: number): void;
}
interface MemfsFile {
  contents: Uint8Array;
  usedBytes: number;
}
type EmscriptenModule = { FS: { root: { mount: { type: MemfsStorage } }; mkdirTree(path: string): void; writeFile(path: string, data: Uint8Array): void } };

/**
 * PGlite's in-memory file system with a file's storage grown by doubling. Emscripten's MEMFS
 * grows a file past 1 MB by an eighth at a time, each time copying it whole, and to the exact size
 * when PostgreSQL extends a relation with fallocate (a truncate upwards): there every extension of
 * a large table or index copies the whole file, and loading a table costs time quadratic in its size.
 */
class GrowingMemoryFS extends MemoryFS {
  override async init(pg: PGlite, emscriptenOptions: Parameters<MemoryFS['init']>[1]): ReturnType<MemoryFS['init']> {
    const { emscriptenOpts } = await super.init(pg, emscriptenOptions);
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), (mod: EmscriptenModule) => this.prepare(mod)] } };
  }

  /** Runs before the server starts, on the module whose root file system is MEMFS. */
  protected prepare(mod: EmscriptenModule): void {
    const memfs = mod.FS.root.mount.type;
    const shrink = memfs.resizeFileStorage.bind(memfs);
    const grow = (node: MemfsFile, size: number) => {
      if (node.contents.length >= size) return;
      const contents = new Uint8Array(Math.max(size, node.contents.length * 2, 4096));
      contents.set(node.contents.subarray(0, node.usedBytes));
      node.contents = contents;
    };
    memfs.expandFileStorage = grow;
    memfs.resizeFileStorage = (node, size) => {
      if (size <= node.usedBytes) return shrink(node, size);
      grow(node, size);
      // Storage past the used bytes may hold what a shrink left there: the new bytes read as zeros.
      node.contents.fill(0, node.usedBytes, size);
      node.usedBytes = size;
    };
  }
}

/**
 * An in-memory file system that starts as a copy of a data directory on disk: each file read in
 * one piece before the server starts. PGlite's own `loadDataDir` unpacks a tarball in small writes,
 * which is slow for a large database; working on a copy in memory also spares every page the
 * round trip to the disk that a store on a data directory makes.
 */
class MemoryCopyFS extends GrowingMemoryFS {
  constructor(private readonly source: string) {
    super();
  }

  protected override prepare(mod: EmscriptenModule): void {
    super.prepare(mod);
    const target = PGlite.paths.PGDATA;
    mod.FS.mkdirTree(target);
    for (const entry of readdirSync(this.source, { recursive: true, withFileTypes: true })) {
      const relative = path.relative(this.source, path.join(entry.parentPath, entry.name));
      if (entry.isDirectory()) mod.FS.mkdirTree(`${target}/${relative}`);
    }
    for (const entry of readdirSync(this.source, { recursive: true, withFileTypes: true })) {
      const relative = path.relative(this.source, path.join(entry.parentPath, entry.name));
      if (entry.isFile() && entry.name !== LOCK_FILE) mod.FS.writeFile(`${target}/${relative}`, readFileSync(path.join(this.source, relative)));
    }
  }
}

/**
 * The embedded store belongs to one process at a time: two PGlite instances on one directory would
 * corrupt it. A lock file with the owner's pid guards it; a stale lock (dead owner) is taken over.
 */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(lockFile, 'utf8'));
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new StoreLockedError(
          `the embedded store in ${dataDir} is in use by process ${owner}; stop it first, or use PostgreSQL (QUARRY_DATABASE_URL) to share one store`,
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new StoreLockedError(`could not lock the embedded store in ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
