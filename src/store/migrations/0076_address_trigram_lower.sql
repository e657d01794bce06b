-- The leaderboard's substring index on lower(address), not on the column itself. pg_trgm's GIN
-- operator class also answers `address = x`, and the planner took it for the key lookups that join
-- address_summary by address (the rank buckets, the supply age figures): with random_page_cost
-- set for SSDs (1.1) it estimated a trigram search cheaper than the primary key, and a batch of
-- 1,000 blocks spent 8-31 s on one such join instead of 0.1 s. An index on an expression is used
-- only by that expression (docs/api-addresses.md, top/active's `q`).
DROP INDEX IF EXISTS address_summary_trgm;
CREATE INDEX address_summary_trgm ON address_summary USING gin (lower(address) gin_trgm_ops);
