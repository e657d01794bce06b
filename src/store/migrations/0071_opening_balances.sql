-- Indexing from a height H above genesis: the balance each address held at H-1, recorded at the
-- block where the address is first seen and credited there by the rollups (docs/indexing-pos.md,
-- "Indexing from above genesis"). `amount` NULL: the node keeps no historical state (a QRL pow
-- node), so the opening balance is unknown. Rows above a reorg's common ancestor are deleted with
-- the blocks.
CREATE TABLE opening_balances (
  chain   TEXT          NOT NULL,
  address TEXT          NOT NULL,
  height  BIGINT        NOT NULL, -- the block where the address is first seen
  amount  NUMERIC(78,0),
  PRIMARY KEY (chain, address)
);
CREATE INDEX opening_balances_height ON opening_balances (chain, height);
