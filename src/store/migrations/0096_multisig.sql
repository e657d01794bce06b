-- pow multi-signature addresses (docs/api-ots.md, "Multi-signature addresses"): the bodies of the
-- multi_sig_create, multi_sig_spend and multi_sig_vote transactions, one table each (and one for a
-- create's signatories and a spend's recipients), written with their block and deleted with it on
-- a reorg. What a spend's votes decide (approval, execution, expiry) is read from these by QRL's
-- rules; a spend moves no value in the other tables.

-- A multi-signature address and the transaction that made it. The address is derived from that
-- transaction's hash: descriptor 110000, SHA-256 of the descriptor and the hash, checksum
-- (theQRL/QRL MultiSigAddressState.generate_multi_sig_address).
CREATE TABLE multisig_addresses (
  chain     TEXT    NOT NULL,
  address   TEXT    NOT NULL,
  height    BIGINT  NOT NULL,
  tx_index  INTEGER NOT NULL,
  tx_hash   TEXT    NOT NULL,
  ts        BIGINT  NOT NULL,
  creator   TEXT    NOT NULL, -- the transaction's sender
  threshold BIGINT  NOT NULL, -- the sum of weights that carries a spend
  PRIMARY KEY (chain, address)
);
CREATE INDEX multisig_addresses_height ON multisig_addresses (chain, height);

-- Its signatories, in the transaction's order, with their weights.
CREATE TABLE multisig_signatories (
  chain     TEXT    NOT NULL,
  address   TEXT    NOT NULL, -- the multi-signature address
  position  INTEGER NOT NULL,
  signatory TEXT    NOT NULL,
  weight    BIGINT  NOT NULL,
  height    BIGINT  NOT NULL, -- of the creating transaction
  PRIMARY KEY (chain, address, position)
);
CREATE INDEX multisig_signatories_signatory ON multisig_signatories (chain, signatory);
CREATE INDEX multisig_signatories_height ON multisig_signatories (chain, height);

-- A proposed spend from a multi-signature address: it pays its recipients once the weights of the
-- signatories approving it reach the threshold, in a block up to its expiry.
CREATE TABLE multisig_spends (
  chain            TEXT          NOT NULL,
  height           BIGINT        NOT NULL,
  tx_index         INTEGER       NOT NULL,
  tx_hash          TEXT          NOT NULL, -- the spend's id: votes name it (their shared_key)
  ts               BIGINT        NOT NULL,
  multisig_address TEXT          NOT NULL,
  proposer         TEXT          NOT NULL, -- the transaction's sender (a signatory)
  expiry_height    BIGINT        NOT NULL, -- expiry_block_number: no vote counts in a later block
  total            NUMERIC(78,0) NOT NULL, -- the sum of the recipients' amounts
  PRIMARY KEY (chain, height, tx_index)
);
CREATE INDEX multisig_spends_address ON multisig_spends (chain, multisig_address, height, tx_index);
CREATE INDEX multisig_spends_hash ON multisig_spends (chain, tx_hash);

CREATE TABLE multisig_spend_recipients (
  chain           TEXT          NOT NULL,
  height          BIGINT        NOT NULL,
  tx_index        INTEGER       NOT NULL,
  recipient_index INTEGER       NOT NULL,
  to_addr         TEXT          NOT NULL,
  amount          NUMERIC(78,0) NOT NULL,
  PRIMARY KEY (chain, height, tx_index, recipient_index)
);

-- A signatory's vote on a spend (unvote: its approval withdrawn).
CREATE TABLE multisig_votes (
  chain      TEXT    NOT NULL,
  height     BIGINT  NOT NULL,
  tx_index   INTEGER NOT NULL,
  tx_hash    TEXT    NOT NULL,
  ts         BIGINT  NOT NULL,
  voter      TEXT    NOT NULL, -- the transaction's sender
  shared_key TEXT    NOT NULL, -- the spend's transaction hash
  unvote     BOOLEAN NOT NULL,
  PRIMARY KEY (chain, height, tx_index)
);
CREATE INDEX multisig_votes_spend ON multisig_votes (chain, shared_key, height, tx_index);
