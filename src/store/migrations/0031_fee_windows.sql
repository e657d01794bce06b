-- top/burners (docs/metrics.md, "Top burners"): per pos address, fees paid, gas used and
-- transactions sent over the last 1, 7, 30, 90 and 365 UTC days ending with the latest block's
-- day, kept with the blocks (src/rollups/fee-windows.ts). Only addresses that paid fees in the window.
CREATE TABLE address_fee_windows (
  chain    TEXT          NOT NULL,
  days     INTEGER       NOT NULL,
  address  TEXT          NOT NULL,
  fees     NUMERIC(78,0) NOT NULL,
  gas_used BIGINT        NOT NULL,
  tx_count INTEGER       NOT NULL,
  PRIMARY KEY (chain, days, address)
);
CREATE INDEX address_fee_windows_rank ON address_fee_windows (chain, days, fees DESC, address);

-- The day the windows of each chain end on (the latest block's UTC day when they were last kept).
CREATE TABLE fee_window_state (
  chain   TEXT NOT NULL PRIMARY KEY,
  tip_day DATE NOT NULL
);

-- 0030's partial index of fee-paying days serves no query now (a window's transactions include
-- those of days without fees); it would only cost writes.
DROP INDEX IF EXISTS address_daily_fee_payers;
