-- pow latticePK transactions: the public keys an address published for encrypted messaging
-- (theQRL/QRL LatticeTransaction: pk1 Kyber, pk2 Dilithium, pk3 ECDSA), as lowercase hex,
-- written with their block and deleted with it on a reorg (docs/api-transactions.md).
CREATE TABLE lattice_keys (
  chain        TEXT    NOT NULL,
  height       BIGINT  NOT NULL,
  tx_index     INTEGER NOT NULL,
  address      TEXT    NOT NULL, -- the transaction's sender, whose keys these are
  kyber_pk     TEXT    NOT NULL,
  dilithium_pk TEXT    NOT NULL,
  ecdsa_pk     TEXT    NOT NULL,
  PRIMARY KEY (chain, height, tx_index)
);
CREATE INDEX lattice_keys_address ON lattice_keys (chain, address, height);
