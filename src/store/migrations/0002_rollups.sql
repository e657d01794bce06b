-- Rollups: maintained by the ingest pipeline in the same transaction as the blocks they derive
-- from, and rolled back with them on a reorg. Definitions are in docs/metrics.md.

-- One row per address ever touched on a chain.
CREATE TABLE address_summary (
  chain             TEXT          NOT NULL,
  address           TEXT          NOT NULL,
  balance           NUMERIC(78,0) NOT NULL DEFAULT 0,
  total_received    NUMERIC(78,0) NOT NULL DEFAULT 0, -- all incoming native value (incl. coinbase, internal, withdrawals, genesis)
  total_sent        NUMERIC(78,0) NOT NULL DEFAULT 0, -- all outgoing native value, fees excluded
  total_fees_paid   NUMERIC(78,0) NOT NULL DEFAULT 0,
  fees_burned       NUMERIC(78,0) NOT NULL DEFAULT 0, -- pos: base-fee part of the fees paid
  gas_used          BIGINT        NOT NULL DEFAULT 0, -- pos: gas used by transactions sent
  tx_count          INTEGER       NOT NULL DEFAULT 0, -- logical transactions touching the address
  tx_received_count INTEGER       NOT NULL DEFAULT 0,
  tx_sent_count     INTEGER       NOT NULL DEFAULT 0,
  first_seen        BIGINT,                           -- time of the first transaction touching it
  first_height      BIGINT,
  first_tx          TEXT,
  last_seen         BIGINT,
  last_height       BIGINT,
  last_tx           TEXT,
  funded_by         TEXT,                             -- sender of the first incoming value
  funded_tx         TEXT,
  funded_at         BIGINT,
  funded_height     BIGINT,
  withdrawal_count  INTEGER       NOT NULL DEFAULT 0,
  withdrawal_total  NUMERIC(78,0) NOT NULL DEFAULT 0,
  internal_tx_count INTEGER       NOT NULL DEFAULT 0, -- internal transfers touching it (a self-transfer once)
  internal_received NUMERIC(78,0) NOT NULL DEFAULT 0,
  internal_sent     NUMERIC(78,0) NOT NULL DEFAULT 0,
  deployed_count    INTEGER       NOT NULL DEFAULT 0, -- pos: contracts this address created
  is_contract       BOOLEAN       NOT NULL DEFAULT false,
  master_address    TEXT,                             -- pow: master that registered this slave key
  slave_count       INTEGER       NOT NULL DEFAULT 0, -- pow: slave keys registered by this master
  ots_used          INTEGER       NOT NULL DEFAULT 0, -- pow: signatures made (one-time keys consumed)
  ots_max_index     INTEGER,                          -- pow: highest one-time key index used
  PRIMARY KEY (chain, address)
);
CREATE INDEX address_summary_balance ON address_summary (chain, balance DESC, address);
CREATE INDEX address_summary_tx_count ON address_summary (chain, tx_count DESC, address);
CREATE INDEX address_summary_received ON address_summary (chain, total_received DESC, address);
CREATE INDEX address_summary_sent ON address_summary (chain, total_sent DESC, address);
CREATE INDEX address_summary_fees ON address_summary (chain, total_fees_paid DESC, address);
CREATE INDEX address_summary_first_seen ON address_summary (chain, first_seen, address);
CREATE INDEX address_summary_last_seen ON address_summary (chain, last_seen, address);
CREATE INDEX address_summary_trgm ON address_summary USING gin (address gin_trgm_ops);

-- Per address and UTC day: value in and out and logical transaction counts.
CREATE TABLE address_daily (
  chain          TEXT          NOT NULL,
  address        TEXT          NOT NULL,
  day            DATE          NOT NULL,
  received       NUMERIC(78,0) NOT NULL DEFAULT 0,
  sent           NUMERIC(78,0) NOT NULL DEFAULT 0, -- value sent, fees excluded
  fees           NUMERIC(78,0) NOT NULL DEFAULT 0,
  fees_burned    NUMERIC(78,0) NOT NULL DEFAULT 0,
  gas_used       BIGINT        NOT NULL DEFAULT 0,
  tx_in          INTEGER       NOT NULL DEFAULT 0,
  tx_out         INTEGER       NOT NULL DEFAULT 0,
  tx_count       INTEGER       NOT NULL DEFAULT 0,
  user_tx_count  INTEGER       NOT NULL DEFAULT 0, -- transactions other than coinbase/admin
  PRIMARY KEY (chain, address, day)
);
CREATE INDEX address_daily_day ON address_daily (chain, day);

-- Per address: logical transactions by UTC weekday (Monday = 0) and hour.
CREATE TABLE address_heatmap (
  chain       TEXT     NOT NULL,
  address     TEXT     NOT NULL,
  day_of_week SMALLINT NOT NULL,
  hour_of_day SMALLINT NOT NULL,
  tx_in       INTEGER  NOT NULL DEFAULT 0,
  tx_out      INTEGER  NOT NULL DEFAULT 0,
  tx_total    INTEGER  NOT NULL DEFAULT 0,
  PRIMARY KEY (chain, address, day_of_week, hour_of_day)
);

-- Per address and counterparty: logical transactions between them and value each way.
CREATE TABLE address_counterparties (
  chain          TEXT          NOT NULL,
  address        TEXT          NOT NULL,
  counterparty   TEXT          NOT NULL,
  tx_count       INTEGER       NOT NULL DEFAULT 0,
  sent_count     INTEGER       NOT NULL DEFAULT 0,
  received_count INTEGER       NOT NULL DEFAULT 0,
  total_sent     NUMERIC(78,0) NOT NULL DEFAULT 0, -- sent by address to counterparty
  total_received NUMERIC(78,0) NOT NULL DEFAULT 0, -- received by address from counterparty
  last_ts        BIGINT        NOT NULL,
  PRIMARY KEY (chain, address, counterparty)
);

-- Token balances per holder.
CREATE TABLE token_balances (
  chain          TEXT          NOT NULL,
  address        TEXT          NOT NULL,
  contract       TEXT          NOT NULL,
  balance        NUMERIC(78,0) NOT NULL DEFAULT 0,
  transfer_count INTEGER       NOT NULL DEFAULT 0,
  last_ts        BIGINT,
  PRIMARY KEY (chain, address, contract)
);

-- Per chain and UTC day: blocks, transactions, fees, gas, issuance and burn.
CREATE TABLE chain_daily (
  chain            TEXT          NOT NULL,
  day              DATE          NOT NULL,
  block_count      INTEGER       NOT NULL DEFAULT 0,
  tx_count         INTEGER       NOT NULL DEFAULT 0,
  user_tx_count    INTEGER       NOT NULL DEFAULT 0,
  fee_sum          NUMERIC(78,0) NOT NULL DEFAULT 0,
  burned           NUMERIC(78,0) NOT NULL DEFAULT 0,
  minted           NUMERIC(78,0) NOT NULL DEFAULT 0, -- coinbase rewards, withdrawals, migration mints
  volume           NUMERIC(78,0) NOT NULL DEFAULT 0, -- native value moved by transactions
  gas_used         NUMERIC(78,0) NOT NULL DEFAULT 0,
  size_sum         BIGINT        NOT NULL DEFAULT 0,
  size_max         INTEGER       NOT NULL DEFAULT 0,
  interval_sum     BIGINT        NOT NULL DEFAULT 0, -- seconds between each block and its parent
  base_fee_sum     NUMERIC(78,0) NOT NULL DEFAULT 0, -- pos: sum of blocks' base fee per gas
  holders_delta    INTEGER       NOT NULL DEFAULT 0, -- addresses whose balance turned positive, less those that turned zero
  PRIMARY KEY (chain, day)
);

-- Per chain and closed UTC day: figures over the whole address population, computed when the day
-- closes (its last block is indexed) and recomputed if a reorg reopens it.
CREATE TABLE chain_day_metrics (
  chain         TEXT    NOT NULL,
  day           DATE    NOT NULL,
  dau           INTEGER NOT NULL, -- addresses with a user transaction that day
  wau           INTEGER NOT NULL, -- ... in the 7 days ending that day
  mau           INTEGER NOT NULL, -- ... in the 30 days ending that day
  new_addresses INTEGER NOT NULL, -- addresses first seen that day
  holders       INTEGER NOT NULL, -- addresses with a positive balance at the end of the day
  PRIMARY KEY (chain, day)
);

-- Per chain counters of the whole history.
CREATE TABLE chain_stats (
  chain              TEXT   NOT NULL PRIMARY KEY,
  address_count      BIGINT NOT NULL DEFAULT 0,
  address_tx_touches BIGINT NOT NULL DEFAULT 0, -- sum of tx_count over addresses
  block_count        BIGINT NOT NULL DEFAULT 0,
  tx_count           BIGINT NOT NULL DEFAULT 0
);
