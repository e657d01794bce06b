-- holder_state is derived data: each holder's balance and last active day at the end of the last
-- closed day, which the population close (src/rollups/charts/supply/distribution.ts) updates for the
-- day's moved addresses and rebuilds from address_daily whenever it finds no state to start from.
-- Written to the WAL, the first update of each page after a checkpoint writes the whole page: a busy
-- day's moved addresses touch nearly every page, and most of the close would go there.
-- Unlogged, it writes no WAL; a server crash empties it, and the next close rebuilds it. Nothing
-- else reads it: its day (holder_state_meta) and its age cells (holder_state_ages) stay logged, for
-- the API, which may run on a streaming replica, where unlogged tables cannot be read.
ALTER TABLE holder_state SET UNLOGGED;
