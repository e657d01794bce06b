-- Holder population figures (docs/metrics.md, "Holder population").

-- Per chain and closed UTC day, over the holders at the day's end: exact inputs of the figures the API
-- answers (the API divides them): pair_diff = Σ_{i<j} |x_i − x_j| (Gini = pair_diff / (holders × supply)),
-- sum_sq = Σ x² (HHI = sum_sq / supply²), the Palma ratio's two groups, and per age bucket (<1m, 1m-1y,
-- 1-2y, 2-5y, >5y) the holders and their balances.
CREATE TABLE chain_supply_daily (
  chain        TEXT            NOT NULL,
  day          DATE            NOT NULL,
  holders      INTEGER         NOT NULL,
  supply       NUMERIC(78,0)   NOT NULL,
  top10        NUMERIC(78,0)   NOT NULL,
  top100       NUMERIC(78,0)   NOT NULL,
  pair_diff    NUMERIC         NOT NULL,
  sum_sq       NUMERIC         NOT NULL,
  nakamoto     INTEGER         NOT NULL,
  palma_top    NUMERIC(78,0)   NOT NULL,
  palma_bottom NUMERIC(78,0)   NOT NULL,
  age_holders  INTEGER[]       NOT NULL,
  age_balance  NUMERIC(78,0)[] NOT NULL,
  PRIMARY KEY (chain, day)
);

-- The chart's working state: every address (sentinels excluded) active up to the end of day
-- holder_state_meta.day, with its balance then (zero too: a reorg that takes the state back must find
-- an address a reverted block emptied) and its last-activity day; and holders (balance > 0) per
-- last-activity day.
CREATE TABLE holder_state (
  chain    TEXT          NOT NULL,
  address  TEXT          NOT NULL,
  balance  NUMERIC(78,0) NOT NULL,
  last_day DATE          NOT NULL,
  PRIMARY KEY (chain, address)
);
-- Rewinding the state to an earlier day (a reorg reopened closed days) finds the addresses active since.
CREATE INDEX holder_state_last_day ON holder_state (chain, last_day);

CREATE TABLE holder_state_ages (
  chain    TEXT          NOT NULL,
  last_day DATE          NOT NULL,
  holders  INTEGER       NOT NULL,
  balance  NUMERIC(78,0) NOT NULL,
  PRIMARY KEY (chain, last_day)
);

-- token: a new random value at every write, so that a process keeping the sorted balances in memory
-- between closes can tell whether they are still the stored state's.
CREATE TABLE holder_state_meta (
  chain TEXT NOT NULL PRIMARY KEY,
  day   DATE NOT NULL,
  token TEXT NOT NULL
);
