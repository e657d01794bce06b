/**
 * One writer per chain. Every command that writes a chain's blocks or rollups (`quarry index`,
 * `refresh`, `generate`, `labels import`, `demo`) takes that chain's writer lock first and holds it
 * until it exits; a second writer is refused at once, with the holder named.
 *
 * The lock is a PostgreSQL session-level advisory lock (`pg_try_advisory_lock`), held on a
 * connection of its own outside the pool (Store.openSession), so that it lives exactly as long as
 * that session: a writer that dies, however it dies, releases it. Its key is the two-integer form
 * `(1364349529, chain)`: the first is ASCII "QRRY" (0x51525259), the second the chain id's ASCII
 * bytes read as a big-endian integer (`pow` 7368567 = 0x706f77, `pos` 7368563 = 0x706f73). In
 * `pg_locks` it shows as locktype `advisory`, classid 1364349529, objid the chain's number,
 * objsubid 2. A command that writes both chains locks them in the order of CHAINS (pow, then pos),
 * so two such commands cannot each hold one and wait for the other.
 *
 * Who holds it (host, process id, since when, which command) is written to `writer_locks` when the
 * lock is taken; the row is only a description, the advisory lock is the lock.
 *
 * A PostgreSQL restart ends the session and with it the lock. Once the store answers again the
 * holder calls `ensureHeld()`, which re-takes it on a new session, or throws WriterLockHeldError if
 * another writer took it in between. On PGlite (one session, one process: its data directory is
 * locked to the process, pglite.ts) the same calls work within the process.
 */
import os from 'node:os';
import sql from 'sql-template-tag';
import { CHAINS, type ChainId } from '../chain/chains.ts';
import { StoreError, StoreUnavailableError } from './errors.ts';
import type { Store, StoreSession } from './store.ts';

const SESSION_QUERY_TIMEOUT_MS = 10_000;

/** The first key of every writer lock: ASCII "QRRY". */
export const WRITER_LOCK_NAMESPACE = 0x51525259;

/** The second key of a chain's writer lock: its id's ASCII bytes as a big-endian integer. */
export function writerLockKey(chain: ChainId): number {
  let key = 0;
  for (const byte of Buffer.from(chain, 'ascii')) key = key * 256 + byte;
  return key;
}

export interface WriterLockHolder {
  chain: ChainId;
  /** null where the holder left no description (it is taking the lock right now). */
  host: string | null;
  pid: number | null;
  /** When it took the lock, `YYYY-MM-DDTHH:MM:SSZ`. */
  since: string | null;
  command: string | null;
}

/** Another writer holds a chain's lock. */
export class WriterLockHeldError extends Error {
  override name = 'WriterLockHeldError';
  constructor(readonly holder: WriterLockHolder) {
    super(describeHolder(holder));
  }
}

export interface WriterLock {
  readonly chains: readonly ChainId[];
  /** True once the lock's connection is gone (the server restarted, the network failed): call ensureHeld. */
  readonly lost: boolean;
  /**
   * Makes sure the lock is still held: checks it on its session, or, if that session is gone,
   * takes it again on a new one. Throws WriterLockHeldError if another writer took it meanwhile,
   * and StoreUnavailableError if the store does not answer (wait for it, then call again).
   */
  ensureHeld(): Promise<void>;
  /** Lets go of the lock and closes its session; safe to call twice. */
  release(): Promise<void>;
}

export interface WriterLockLogger {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export interface AcquireWriterLockOptions {
  /** What the holder is doing, shown to a refused writer: `index pos`, `refresh`, `generate`. */
  command: string;
  logger?: WriterLockLogger;
}

/** Takes the writer locks of `chains` (in CHAINS order), or throws WriterLockHeldError naming the holder. */
export async function acquireWriterLock(store: Store, chains: readonly ChainId[], options: AcquireWriterLockOptions): Promise<WriterLock> {
  const ordered = CHAINS.filter((chain) => chains.includes(chain));
  if (ordered.length === 0) throw new Error('acquireWriterLock: no chain named');
  const { command, logger } = options;
  let session: StoreSession | null = await takeAll(store, ordered, command);
  let lost = false;
  let released = false;
  const watch = (s: StoreSession) =>
    s.onLost(() => {
      if (released || s !== session) return;
      lost = true;
      logger?.warn({ chains: ordered }, `writer lock of ${ordered.join(' and ')} lost with its connection; it must be taken again before the next write`);
    });
  watch(session);
  logger?.info({ chains: ordered, command }, `writer lock of ${ordered.join(' and ')} taken`);

  let pending: Promise<void> = Promise.resolve();
  const ensureHeld = async () => {
    if (released) throw new Error('the writer lock was released');
    if (session && !lost) {
      try {
        const [row] = await session.query<{ held: number }>('writer_lock.check', heldByMe(ordered));
        if (row?.held === ordered.length) return;
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) throw error;
      }
    }
    // Gone, or no longer holding every lock: a new session takes them again.
    const old = session;
    session = null;
    lost = true;
    await old?.close().catch(() => {});
    const next = await takeAll(store, ordered, command);
    if (released) {
      await releaseAll(next, ordered);
      return;
    }
    session = next;
    lost = false;
    watch(next);
    logger?.info({ chains: ordered, command }, `writer lock of ${ordered.join(' and ')} taken again`);
  };

  return {
    chains: ordered,
    get lost() {
      return lost;
    },
    // One check at a time: two callers at once must not both open sessions.
    ensureHeld: () => {
      const run = pending.then(ensureHeld);
      pending = run.catch(() => {});
      return run;
    },
    release: async () => {
      if (released) return;
      released = true;
      await pending;
      const s = session;
      session = null;
      if (s) await releaseAll(s, ordered);
    },
  };
}

/** Opens a session and takes every lock on it, or closes it again and throws. */
async function takeAll(store: Store, chains: readonly ChainId[], command: string): Promise<StoreSession> {
  // Its statements are short and never wait (pg_try_advisory_lock): a session that does not answer
  // within seconds is gone, whatever the store's limit for long statements.
  const session = await store.openSession({ queryTimeoutMs: SESSION_QUERY_TIMEOUT_MS });
  const taken: ChainId[] = [];
  try {
    for (const chain of chains) {
      const key = writerLockKey(chain);
      // PGlite's one session would be granted a lock it already holds (session locks stack): a
      // second writer in the same process is refused here instead.
      const [mine] = await session.query<{ held: number }>('writer_lock.mine', heldByMe([chain]));
      const [row] = mine?.held
        ? [{ ok: false }]
        : await session.query<{ ok: boolean }>('writer_lock.try', sql`SELECT pg_try_advisory_lock(${WRITER_LOCK_NAMESPACE}::int4, ${key}::int4) AS ok`);
      if (!row?.ok) throw new WriterLockHeldError(await holderOf(session, chain));
      taken.push(chain);
      await session.query(
        'writer_lock.describe',
        sql`INSERT INTO writer_locks (chain, host, pid, since_ts, command, backend_pid)
            VALUES (${chain}, ${os.hostname()}, ${process.pid}, now(), ${command}, pg_backend_pid())
            ON CONFLICT (chain) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, since_ts = EXCLUDED.since_ts,
              command = EXCLUDED.command, backend_pid = EXCLUDED.backend_pid`,
      );
    }
    return session;
  } catch (error) {
    await releaseAll(session, taken);
    if (error instanceof StoreError && error.code === '42P01') {
      throw new Error('the store is not fully migrated (no writer_locks table): run `quarry migrate` first', { cause: error });
    }
    throw error;
  }
}

/** Unlocks `chains` on `session` (removing their descriptions) and closes it; a lost session has nothing left to unlock. */
async function releaseAll(session: StoreSession, chains: readonly ChainId[]): Promise<void> {
  try {
    for (const chain of [...chains].reverse()) {
      await session.query('writer_lock.forget', sql`DELETE FROM writer_locks WHERE chain = ${chain} AND backend_pid = pg_backend_pid()`);
      await session.query('writer_lock.unlock', sql`SELECT pg_advisory_unlock(${WRITER_LOCK_NAMESPACE}::int4, ${writerLockKey(chain)}::int4)`);
    }
  } catch {
    // The connection is gone: the server already let go of the locks with it.
  } finally {
    await session.close();
  }
}

/** How many of `chains`' locks this session holds. */
function heldByMe(chains: readonly ChainId[]) {
  return sql`SELECT count(*)::int AS held FROM pg_locks
             WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid() AND objsubid = 2
               AND classid = ${WRITER_LOCK_NAMESPACE}::int8::oid AND objid = ANY(${chains.map(writerLockKey)}::int8[]::oid[])`;
}

/** The description the holder of `chain`'s lock wrote, if its session still holds the lock. */
async function holderOf(session: StoreSession, chain: ChainId): Promise<WriterLockHolder> {
  const [row] = await session.query<{ host: string | null; pid: number | null; since: string | null; command: string | null }>(
    'writer_lock.holder',
    sql`SELECT w.host, w.pid, to_char(w.since_ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since, w.command
        FROM pg_locks l
        JOIN writer_locks w ON w.chain = ${chain} AND w.backend_pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
          AND l.classid = ${WRITER_LOCK_NAMESPACE}::int8::oid AND l.objid = ${writerLockKey(chain)}::int8::oid
        LIMIT 1`,
  );
  return { chain, host: row?.host ?? null, pid: row?.pid ?? null, since: row?.since ?? null, command: row?.command ?? null };
}

function describeHolder(holder: WriterLockHolder): string {
  const who =
    holder.host === null
      ? 'another writer (it has not described itself yet)'
      : `\`quarry ${holder.command}\` on host ${holder.host}, pid ${holder.pid}, since ${holder.since}`;
  return `the ${holder.chain} writer lock is held by ${who}: one writer per chain; stop that one first, or wait for it to finish`;
}
