-- The population close updates the state of the day's moved addresses and needs their state before
-- (src/rollups/charts/supply/distribution.ts). PostgreSQL 15 has no RETURNING OLD, and looking the
-- rows up first costs as much as the upsert (a key lookup per moved address). The
-- upsert keeps the state it replaces in these two columns and returns them: meaningful only in the
-- RETURNING of the statement that set them.
ALTER TABLE holder_state ADD COLUMN prev_balance NUMERIC(78,0), ADD COLUMN prev_last_day DATE;
