-- The rank buckets and substring counts are small tables whose rows are updated by every batch:
-- room on their pages lets those updates stay on the page (HOT) instead of adding index entries.
ALTER TABLE address_rank_buckets SET (fillfactor = 50);
ALTER TABLE address_grams SET (fillfactor = 50);
