-- The event log of each chain that GET /api/v1/{chain}/events streams (docs/events.md): a `block` per
-- stored canonical block, a `reorg` per recorded rollback, a `day` per closed UTC day. Ingest appends
-- the events in the transaction that stores what they report (src/ingest/events.ts), so every API
-- process and read replica sees an event exactly when its facts are visible. `id` counts a chain's
-- events without holes (the next is the newest + 1; one writer per chain), so a reader that knows the
-- oldest kept id knows whether anything after its last id was pruned. Only the newest events of a
-- chain are kept; a rollback deletes none (events are a log). `data` holds the facts of the event
-- (times in Unix seconds); the API shapes them.
CREATE TABLE chain_events (
  chain TEXT   NOT NULL,
  id    BIGINT NOT NULL,
  kind  TEXT   NOT NULL,
  data  JSONB  NOT NULL,
  PRIMARY KEY (chain, id)
);
