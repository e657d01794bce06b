-- Exchange analytics (docs/metrics.md, "Exchanges"): relay evidence, per-venue daily flows, the
-- largest deposits and withdrawals of each day, and per-venue relay totals. Kept with the blocks
-- (src/rollups/exchange/), rebuilt from the raw rows when curated data is imported.

-- Per curated deposit relay that has sent native value: how many of its transfers went to a hot or
-- cold wallet of its own venue, and how many went anywhere else. The confirmation rule reads them.
CREATE TABLE exchange_relay_evidence (
  chain    TEXT    NOT NULL,
  address  TEXT    NOT NULL,
  forwards INTEGER NOT NULL,
  strays   INTEGER NOT NULL,
  PRIMARY KEY (chain, address)
);

-- Per venue and UTC day: value deposited into and withdrawn from its confirmed addresses
-- (transfers between two addresses of one venue excluded). Days without a flow have no row.
CREATE TABLE exchange_flow_daily (
  chain          TEXT          NOT NULL,
  exchange       TEXT          NOT NULL,
  day            DATE          NOT NULL,
  deposits       NUMERIC(78,0) NOT NULL,
  withdrawals    NUMERIC(78,0) NOT NULL,
  deposit_txs    INTEGER       NOT NULL,
  withdrawal_txs INTEGER       NOT NULL,
  PRIMARY KEY (chain, exchange, day)
);
CREATE INDEX exchange_flow_daily_day ON exchange_flow_daily (chain, day);

-- Per UTC day and direction: the largest single deposits and withdrawals (at most 100 of each),
-- one row per transfer (a pow multi-recipient transfer has one per recipient).
CREATE TABLE exchange_largest (
  chain           TEXT          NOT NULL,
  day             DATE          NOT NULL,
  direction       TEXT          NOT NULL CHECK (direction IN ('deposit', 'withdrawal')),
  height          BIGINT        NOT NULL,
  tx_index        INTEGER       NOT NULL,
  recipient_index INTEGER       NOT NULL, -- -1: the transaction's single recipient
  value           NUMERIC(78,0) NOT NULL,
  tx_hash         TEXT          NOT NULL,
  ts              BIGINT        NOT NULL,
  from_addr       TEXT          NOT NULL,
  to_addr         TEXT          NOT NULL,
  exchange        TEXT          NOT NULL,
  via_relay       BOOLEAN       NOT NULL,
  PRIMARY KEY (chain, direction, day, height, tx_index, recipient_index)
);
-- Wide windows: the largest values first, filtered by day.
CREATE INDEX exchange_largest_value ON exchange_largest (chain, direction, value DESC);

-- Per venue: its confirmed deposit relays and their summed balance (relays can be very many; the
-- hot and cold wallets are few and read directly).
CREATE TABLE exchange_venue_relays (
  chain         TEXT          NOT NULL,
  exchange      TEXT          NOT NULL,
  relays        INTEGER       NOT NULL,
  relay_balance NUMERIC(78,0) NOT NULL,
  PRIMARY KEY (chain, exchange)
);

-- The few curated hot and cold wallets of a chain, and its confirmed relays, without reading every relay.
CREATE INDEX exchange_wallets_custody ON exchange_wallets (chain, exchange, address) WHERE role IN ('hot', 'cold');
CREATE INDEX exchange_wallets_confirmed_relays ON exchange_wallets (chain, address) WHERE role = 'deposit_relay' AND confirmed;
