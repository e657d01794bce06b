-- Timeline figures (docs/metrics.md, "Timeline"): kept with the blocks, reverted with them.

-- Per address and UTC day: multi-recipient transfers (payouts) it received without sending or
-- signing them. Sparse: only payout recipients have rows.
CREATE TABLE address_payout_days (
  chain   TEXT    NOT NULL,
  address TEXT    NOT NULL,
  day     DATE    NOT NULL,
  payouts INTEGER NOT NULL,
  PRIMARY KEY (chain, address, day)
);

-- Per chain and UTC day, the open day included: active addresses (any participation), those with
-- an activity other than receiving payouts, and active wallets holding at least 100 and 1,000 coins
-- at the end of the day. Days where all four are 0 have no row.
CREATE TABLE chain_timeline_activity (
  chain        TEXT    NOT NULL,
  day          DATE    NOT NULL,
  addresses    INTEGER NOT NULL DEFAULT 0,
  non_payout   INTEGER NOT NULL DEFAULT 0,
  wallets_100  INTEGER NOT NULL DEFAULT 0,
  wallets_1000 INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (chain, day)
);

-- Per chain and closed UTC day: cumulative distinct wallets and cumulative coins minted (a chart).
CREATE TABLE chain_timeline_totals (
  chain   TEXT          NOT NULL,
  day     DATE          NOT NULL,
  wallets BIGINT        NOT NULL,
  supply  NUMERIC(78,0) NOT NULL,
  PRIMARY KEY (chain, day)
);
