-- /whales/biggest (docs/metrics.md, "Whales"): per chain and UTC day, the largest user transactions by
-- native value (at most 100 a day: the endpoint's largest limit), kept per block by
-- src/rollups/day-top-txs.ts. Same candidates as chain_day_largest, whose row is each day's first.
CREATE TABLE chain_day_top_txs (
  chain     TEXT          NOT NULL,
  day       DATE          NOT NULL,
  height    BIGINT        NOT NULL,
  tx_index  INTEGER       NOT NULL,
  value     NUMERIC(78,0) NOT NULL,
  tx_hash   TEXT          NOT NULL,
  from_addr TEXT          NOT NULL,
  to_addr   TEXT,
  ts        BIGINT        NOT NULL,
  tx_type   TEXT          NOT NULL,
  PRIMARY KEY (chain, height, tx_index)
);
CREATE INDEX chain_day_top_txs_day ON chain_day_top_txs (chain, day, value DESC, height, tx_index);
