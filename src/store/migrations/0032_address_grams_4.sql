-- address_grams counts strings of four characters too (src/rollups/address-ranks.ts, GRAM_MAX):
-- a leaderboard q of up to four characters is counted from it. Backfill what is already indexed.
INSERT INTO address_grams (chain, population, gram, addresses)
SELECT g.chain, p.population, g.gram, count(*)
FROM (
  SELECT DISTINCT s.chain, s.address, s.balance > 0 AS holder, substr(lower(s.address), i, 4) AS gram
  FROM address_summary s
  CROSS JOIN LATERAL generate_series(1, length(s.address) - 3) AS i
) g
CROSS JOIN LATERAL (VALUES ('all'), (CASE WHEN g.holder THEN 'holders' END)) AS p(population)
WHERE p.population IS NOT NULL
GROUP BY g.chain, p.population, g.gram;
