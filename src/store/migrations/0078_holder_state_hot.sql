-- The population close updates the state of each day's moved addresses (in
-- src/rollups/charts/supply/distribution.ts). An update that changes no indexed column and finds room
-- on its page is heap-only (HOT): no index entry is written for it. So holder_state leaves room on
-- its pages, and last_day, which every such update changes, is not indexed: taking the state back
-- after a reorg reopened closed days reads the table through.
DROP INDEX holder_state_last_day;
ALTER TABLE holder_state SET (fillfactor = 70);
