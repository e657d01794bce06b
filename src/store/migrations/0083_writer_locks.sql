-- Who holds each chain's writer lock (src/store/writer-lock.ts): written by the writer when it takes
-- the PostgreSQL advisory lock, read by a second writer to name the holder when it is refused. The
-- advisory lock is the lock; a row whose session has ended is stale and is overwritten by the next
-- writer. `backend_pid` is the holder's server session (pg_stat_activity.pid).
CREATE TABLE writer_locks (
  chain       TEXT        NOT NULL PRIMARY KEY,
  host        TEXT        NOT NULL,
  pid         INTEGER     NOT NULL,
  since_ts    TIMESTAMPTZ NOT NULL,
  command     TEXT        NOT NULL,
  backend_pid INTEGER     NOT NULL
);
