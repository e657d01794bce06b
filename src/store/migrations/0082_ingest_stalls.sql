-- A chain whose indexer stopped advancing: the height it cannot write (a block that stays
-- undecodable after its re-fetches, a reorg deeper than the limit) and why. One row per chain,
-- written when the indexer stops there and deleted when a block at that height is written.
CREATE TABLE ingest_stalls (
  chain     TEXT   PRIMARY KEY,
  source    TEXT   NOT NULL,
  height    BIGINT NOT NULL,
  reason    TEXT   NOT NULL,
  since_ts  BIGINT NOT NULL
);
