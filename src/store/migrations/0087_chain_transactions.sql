-- The chain's transaction list (GET /api/v1/{chain}/transactions, docs/api-transactions.md).

-- The list with a tx_type filter: the type's transactions newest first, so that a page (at any
-- depth, by cursor) reads only the rows it shows. The list without a filter reads the primary key.
-- A bulk load drops and rebuilds it with the other secondary indexes of transactions.
CREATE INDEX transactions_type ON transactions (chain, tx_type, height, tx_index);

-- Transactions a reorg removed from the canonical chain: the block that held each and when the
-- rollback happened, so that GET /{chain}/transactions/{hash} can say why a hash it once served is
-- gone. Written in the rollback's transaction (src/ingest/rewind.ts); a row is deleted when its
-- transaction is stored again on the new branch. A record of the run, like reorgs.
CREATE TABLE orphaned_txs (
  chain        TEXT    NOT NULL,
  tx_hash      TEXT    NOT NULL,
  height       BIGINT  NOT NULL, -- the removed block's height
  block_hash   TEXT    NOT NULL, -- the removed block's hash
  reorg_height BIGINT  NOT NULL, -- the first height the reorg replaced (its common ancestor + 1)
  removed_ts   BIGINT  NOT NULL, -- when the rollback ran (Unix seconds)
  PRIMARY KEY (chain, tx_hash)
);
