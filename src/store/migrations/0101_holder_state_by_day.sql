-- Closing a followed chain's day reads the state of the addresses active that day from holder_state
-- (src/rollups/charts/supply/distribution.ts): those that have not moved since are the rows whose
-- last active day is the day. Found by this index, a busy day's hundred thousand rows are read in
-- page order, instead of the day's rows of address_daily being grouped by address and each address
-- probed by key. The blocks' updates that change an address's last active day (its first of a day)
-- are no longer heap-only; those later the same day still can be.
CREATE INDEX holder_state_last_day ON holder_state (chain, last_day);
