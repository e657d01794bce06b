-- Contracts created by call frames below the top level of a transaction (a factory's CREATE or
-- CREATE2), with or without value: what makes the creator a deployer and the address a contract
-- when no receipt names it (docs/indexing-pos.md, "Internal transfers"). A top-level creation
-- stays in transactions.contract_address.
CREATE TABLE contract_creations (
  chain         TEXT    NOT NULL,
  height        BIGINT  NOT NULL,
  tx_index      INTEGER NOT NULL,
  trace_address TEXT    NOT NULL, -- dot-separated path of the creating frame, e.g. '0.1'
  creator       TEXT    NOT NULL,
  address       TEXT    NOT NULL,
  PRIMARY KEY (chain, height, tx_index, trace_address)
);
CREATE INDEX contract_creations_address ON contract_creations (chain, address);
