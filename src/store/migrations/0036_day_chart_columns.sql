-- Each day chart writes its own columns of chain_day_metrics (src/rollups/charts): a row may be
-- started by any of them.
ALTER TABLE chain_day_metrics
  ALTER COLUMN dau SET DEFAULT 0,
  ALTER COLUMN wau SET DEFAULT 0,
  ALTER COLUMN mau SET DEFAULT 0,
  ALTER COLUMN new_addresses SET DEFAULT 0,
  ALTER COLUMN holders SET DEFAULT 0;
