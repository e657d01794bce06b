-- Address ranks and leaderboard counts (docs/metrics.md, "Ranks and percentiles" and "Leaderboard
-- totals"): precomputed so that a rank, a percentile or a filtered count over a million addresses
-- reads a few hundred rows and a bounded index range instead of counting the population.

-- First appearance of an address: its first transaction, or an earlier credit without one (a
-- genesis allocation, a withdrawal, an internal transfer). The by_age rank orders by it.
ALTER TABLE address_summary ADD COLUMN appeared BIGINT GENERATED ALWAYS AS (least(first_seen, funded_at)) STORED;
CREATE INDEX address_summary_appeared ON address_summary (chain, appeared, address);
-- Newest first (the leaderboard's first_seen sort), addresses without a transaction last.
CREATE INDEX address_summary_first_seen_desc ON address_summary (chain, first_seen DESC NULLS LAST, address);

-- Bucket of an amount or a count: -1 below zero, 0 for zero, the value itself below 100 (as
-- 100 + v and 200 + v), otherwise digits * 100 + the first two digits. Buckets order like the
-- values; a bucket of three or more digits spans [lead * 10^(d-2), (lead + 1) * 10^(d-2)).
-- src/rollups/address-ranks.ts has the same function in TypeScript (a test checks they agree).
CREATE FUNCTION quarry_rank_bucket(v NUMERIC) RETURNS BIGINT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN v < 0 THEN -1 WHEN v = 0 THEN 0 WHEN v < 10 THEN 100 + v::bigint
                  ELSE length(v::text) * 100 + left(v::text, 2)::bigint END $$;

-- Bucket of a first appearance: its UTC hour; addresses without one (a slave key registered and
-- never used) in a bucket after every hour.
CREATE FUNCTION quarry_age_bucket(appeared BIGINT) RETURNS BIGINT
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT coalesce(appeared / 3600, 999999999999) $$;

-- Per chain, metric (balance, tx_count, age) and bucket: how many addresses fall in it and, for
-- balance, the sum of their balances. Maintained with address_summary (src/rollups/address-ranks.ts).
CREATE TABLE address_rank_buckets (
  chain     TEXT          NOT NULL,
  metric    TEXT          NOT NULL CHECK (metric IN ('balance', 'tx_count', 'age')),
  bucket    BIGINT        NOT NULL,
  addresses BIGINT        NOT NULL,
  balance   NUMERIC(78,0) NOT NULL DEFAULT 0,
  PRIMARY KEY (chain, metric, bucket)
);

-- Per chain and population (all addresses, or holders: balance > 0): how many addresses contain
-- each string of one to three characters, case-insensitively (the leaderboard's short q).
CREATE TABLE address_grams (
  chain      TEXT   NOT NULL,
  population TEXT   NOT NULL CHECK (population IN ('all', 'holders')),
  gram       TEXT   NOT NULL,
  addresses  BIGINT NOT NULL,
  PRIMARY KEY (chain, population, gram)
);

-- top/burners: fee payers per day, read without touching the rest of address_daily.
CREATE INDEX address_daily_fee_payers ON address_daily (chain, day) INCLUDE (address, fees, gas_used, tx_out) WHERE fees > 0;

-- Backfill from what is already indexed (nothing on a new store).
INSERT INTO address_rank_buckets (chain, metric, bucket, addresses, balance)
SELECT s.chain, m.metric, m.bucket, count(*), coalesce(sum(m.balance), 0)
FROM address_summary s
CROSS JOIN LATERAL (VALUES ('balance', quarry_rank_bucket(s.balance), s.balance),
                           ('tx_count', quarry_rank_bucket(s.tx_count), NULL::numeric),
                           ('age', quarry_age_bucket(s.appeared), NULL::numeric)) AS m(metric, bucket, balance)
GROUP BY s.chain, m.metric, m.bucket;

INSERT INTO address_grams (chain, population, gram, addresses)
SELECT g.chain, p.population, g.gram, count(*)
FROM (
  SELECT DISTINCT s.chain, s.address, s.balance > 0 AS holder, substr(lower(s.address), i, n) AS gram
  FROM address_summary s
  CROSS JOIN generate_series(1, 3) AS n
  CROSS JOIN LATERAL generate_series(1, length(s.address) - n + 1) AS i
) g
CROSS JOIN LATERAL (VALUES ('all'), (CASE WHEN g.holder THEN 'holders' END)) AS p(population)
WHERE p.population IS NOT NULL
GROUP BY g.chain, p.population, g.gram;
