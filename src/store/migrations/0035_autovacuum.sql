-- The API's reads are index-only scans wherever they can be (an address's feed keys, rank and
-- bucket counts, its daily rows). They skip the heap only on pages the visibility map marks
-- all-visible, which only VACUUM sets. With the default thresholds autovacuum visits a table
-- after 20 % of it has changed (inserts or updates): on a chain of millions of rows, the newest
-- blocks and the recently updated rollup rows (exactly what explorers ask for) would stay
-- unmarked for days. These tables are vacuumed after about 1 % instead (0.5 % for the raw rows,
-- which are only inserted), so what a request reads is almost all marked a few minutes after
-- the blocks arrive. Vacuuming pages that are already marked costs nothing; the extra work is
-- proportional to what changed.
ALTER TABLE transactions SET (autovacuum_vacuum_insert_scale_factor = 0.005, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE tx_recipients SET (autovacuum_vacuum_insert_scale_factor = 0.005, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE internal_txs SET (autovacuum_vacuum_insert_scale_factor = 0.005, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE token_transfers SET (autovacuum_vacuum_insert_scale_factor = 0.005, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE blocks SET (autovacuum_vacuum_insert_scale_factor = 0.005, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE address_summary SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE address_daily SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE address_counterparties SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE address_heatmap SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE token_balances SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE address_last_seen_counts SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
