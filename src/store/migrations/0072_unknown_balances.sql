-- A balance the store cannot know: an address first seen when indexing from above genesis on a
-- node that keeps no historical state (the QRL pow node: docs/indexing-pow.md). Its balance is
-- NULL and stays NULL (NULL + x is NULL), so sums leave it out, comparisons (holders, whales,
-- thresholds) never count it, and the API answers null rather than a net flow.
ALTER TABLE address_summary ALTER COLUMN balance DROP NOT NULL;
