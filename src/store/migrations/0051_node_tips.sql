-- The height of each chain's node tip as last seen by what feeds the chain (an indexer, the
-- generator): how far indexing has to go (docs/metrics.md, "Supply", node tip).
CREATE TABLE chain_node_tips (
  chain   TEXT   NOT NULL PRIMARY KEY,
  height  BIGINT NOT NULL,
  seen_ts BIGINT NOT NULL
);
