-- Rollups of the network analytics (docs/metrics.md): kept with the blocks, reverted with them.

-- Per chain, UTC day and transaction type: transactions (transactions/by-type).
CREATE TABLE chain_tx_types (
  chain    TEXT    NOT NULL,
  day      DATE    NOT NULL,
  tx_type  TEXT    NOT NULL,
  tx_count INTEGER NOT NULL,
  PRIMARY KEY (chain, day, tx_type)
);

-- Per chain, UTC day and gas bucket (0-6): transactions (gas-distribution; pos).
CREATE TABLE chain_gas_buckets (
  chain    TEXT     NOT NULL,
  day      DATE     NOT NULL,
  bucket   SMALLINT NOT NULL,
  tx_count INTEGER  NOT NULL,
  PRIMARY KEY (chain, day, bucket)
);

-- Every fee of a day as a multiset (fee, how many transactions paid it): exact percentiles.
CREATE TABLE chain_fee_values (
  chain    TEXT          NOT NULL,
  day      DATE          NOT NULL,
  fee      NUMERIC(78,0) NOT NULL,
  tx_count INTEGER       NOT NULL,
  PRIMARY KEY (chain, day, fee)
);

-- The fee percentiles of closed days (a chart; the open day is read from chain_fee_values).
CREATE TABLE chain_fee_daily (
  chain    TEXT          NOT NULL,
  day      DATE          NOT NULL,
  tx_count INTEGER       NOT NULL DEFAULT 0,
  fee_p50  NUMERIC(78,0) NOT NULL DEFAULT 0,
  fee_p95  NUMERIC(78,0) NOT NULL DEFAULT 0,
  fee_p99  NUMERIC(78,0) NOT NULL DEFAULT 0,
  fee_max  NUMERIC(78,0) NOT NULL DEFAULT 0,
  fee_sum  NUMERIC(78,0) NOT NULL DEFAULT 0,
  PRIMARY KEY (chain, day)
);

-- Per chain and UTC hour (hours since 1970): blocks and transactions (tps, busiest hour).
CREATE TABLE chain_hourly (
  chain       TEXT    NOT NULL,
  hour        BIGINT  NOT NULL,
  block_count INTEGER NOT NULL,
  tx_count    INTEGER NOT NULL,
  PRIMARY KEY (chain, hour)
);

-- The largest value a user transaction moved on each UTC day, and which one.
CREATE TABLE chain_day_largest (
  chain     TEXT          NOT NULL,
  day       DATE          NOT NULL,
  value     NUMERIC(78,0) NOT NULL,
  tx_hash   TEXT          NOT NULL,
  from_addr TEXT          NOT NULL,
  to_addr   TEXT,
  ts        BIGINT        NOT NULL,
  height    BIGINT        NOT NULL,
  tx_index  INTEGER       NOT NULL,
  PRIMARY KEY (chain, day)
);

-- Per address: its first and latest day with a user transaction (wallets, active-address gaps).
CREATE TABLE address_user_days (
  chain     TEXT NOT NULL,
  address   TEXT NOT NULL,
  first_day DATE NOT NULL,
  last_day  DATE NOT NULL,
  PRIMARY KEY (chain, address)
);

-- Per chain and UTC day: addresses active that day by the gap in days since their previous active
-- day (0 = first active day ever, 31 = 31 or more). DAU, WAU, MAU and new wallets of any day,
-- the open one included, are sums over at most 30 days of these rows.
CREATE TABLE chain_active_gaps (
  chain     TEXT     NOT NULL,
  day       DATE     NOT NULL,
  gap       SMALLINT NOT NULL,
  addresses INTEGER  NOT NULL,
  PRIMARY KEY (chain, day, gap)
);

ALTER TABLE chain_day_metrics ADD COLUMN new_wallets INTEGER NOT NULL DEFAULT 0;
