-- holder_state is kept with the blocks from now on (src/rollups/charts/supply/distribution.ts,
-- holderState): each address's current balance and last active day, and its state at the end of the
-- day before that last active day, so that closing a day reads the state instead of rewriting the
-- day's moved addresses. Rows written the old way (the state at the end of the last closed day) mean
-- something else: emptied, the next close or the indexer's start rebuilds the table from address_daily.
TRUNCATE holder_state;
