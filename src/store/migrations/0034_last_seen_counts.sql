-- Addresses per last-activity time, per chain: `active_24h` of /addresses/stats/summary sums the
-- rows of the last 24 hours (at most a day of block timestamps) instead of counting address_summary
-- rows by last_seen. Such a count is slow on a large chain for a structural reason: the addresses
-- active in the last day are exactly the rows the latest batches rewrote, so an index-only scan
-- must fetch each of them from the heap.
--
-- Kept by statement triggers on address_summary, so that every writer (a batch's apply, a reorg's
-- revert and repair, a refresh, the bulk load) keeps it exact without knowing of it.
CREATE TABLE address_last_seen_counts (
  chain     TEXT   NOT NULL,
  last_seen BIGINT NOT NULL,
  addresses BIGINT NOT NULL,
  PRIMARY KEY (chain, last_seen)
);

INSERT INTO address_last_seen_counts (chain, last_seen, addresses)
SELECT chain, last_seen, count(*) FROM address_summary WHERE last_seen IS NOT NULL GROUP BY chain, last_seen;

-- One function for the three triggers (a trigger with transition tables has one event): adds the
-- new rows' last_seen, subtracts the old rows', and drops the counts that reached zero.
CREATE FUNCTION quarry_keep_last_seen_counts() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO address_last_seen_counts AS c (chain, last_seen, addresses)
    SELECT chain, last_seen, count(*) FROM new_rows WHERE last_seen IS NOT NULL GROUP BY chain, last_seen
    ON CONFLICT (chain, last_seen) DO UPDATE SET addresses = c.addresses + excluded.addresses;
    RETURN NULL;
  END IF;
  IF TG_OP = 'UPDATE' THEN
    INSERT INTO address_last_seen_counts AS c (chain, last_seen, addresses)
    SELECT chain, last_seen, sum(n) FROM (
      SELECT chain, last_seen, 1 AS n FROM new_rows WHERE last_seen IS NOT NULL
      UNION ALL
      SELECT chain, last_seen, -1 AS n FROM old_rows WHERE last_seen IS NOT NULL
    ) moved
    GROUP BY chain, last_seen
    HAVING sum(n) <> 0
    ON CONFLICT (chain, last_seen) DO UPDATE SET addresses = c.addresses + excluded.addresses;
  ELSE
    UPDATE address_last_seen_counts c SET addresses = c.addresses - o.n
    FROM (SELECT chain, last_seen, count(*) AS n FROM old_rows WHERE last_seen IS NOT NULL GROUP BY chain, last_seen) o
    WHERE c.chain = o.chain AND c.last_seen = o.last_seen;
  END IF;
  -- Only a subtraction can reach zero, so only the old rows' times are looked at.
  DELETE FROM address_last_seen_counts c
  USING (SELECT DISTINCT chain, last_seen FROM old_rows WHERE last_seen IS NOT NULL) o
  WHERE c.chain = o.chain AND c.last_seen = o.last_seen AND c.addresses = 0;
  RETURN NULL;
END
$$;

CREATE TRIGGER address_summary_last_seen_insert AFTER INSERT ON address_summary
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION quarry_keep_last_seen_counts();
CREATE TRIGGER address_summary_last_seen_update AFTER UPDATE ON address_summary
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION quarry_keep_last_seen_counts();
CREATE TRIGGER address_summary_last_seen_delete AFTER DELETE ON address_summary
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION quarry_keep_last_seen_counts();
