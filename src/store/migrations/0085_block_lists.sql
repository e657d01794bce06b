-- The block list of one producer (GET /{chain}/blocks?producer=): newest first within the miner's
-- index range. A bulk load drops and rebuilds it with the other secondary indexes of blocks.
CREATE INDEX blocks_miner ON blocks (chain, miner, height);
-- The node's finalized block as last seen by what feeds the chain (pos: the node's `finalized`
-- block; pow: the height below which an archive's chain is final); null when nothing recorded one.
ALTER TABLE chain_node_tips ADD COLUMN finalized_height BIGINT;
