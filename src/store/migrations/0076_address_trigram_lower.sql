-- The leaderboard's substring index on lower(address), not on the column itself. pg_trgm's GIN
-- operator class also answers `address = x`, and the planner took it for the key lookups that join
-- address_summary by address (the rank buckets, the supply age figures): with random_page_cost
-- set for SSDs (1.1) it estimated a trigram search cheaper than the primary key, and such a join
-- took seconds per batch instead of a tenth (docs/api-addresses.md). An index on an expression is
-- used only by that expression (top/active's `q` is written to match).
DROP INDEX IF EXISTS address_summary_trgm;
CREATE INDEX address_summary_trgm ON address_summary USING gin (lower(address) gin_trgm_ops);
