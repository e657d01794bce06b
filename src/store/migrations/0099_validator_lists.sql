-- The validator list (GET /api/v1/pos/validators, docs/api-validators.md): keyset pages in index
-- or balance order, alone or within one beacon status or status group, each read from an index in
-- its order. A group is the status's first word (pending, active, exited, withdrawal), as the
-- beacon API's status filter groups them.
CREATE INDEX validators_balance ON validators (chain, balance, validator_index);
CREATE INDEX validators_status ON validators (chain, status, validator_index);
CREATE INDEX validators_status_balance ON validators (chain, status, balance, validator_index);
CREATE INDEX validators_group ON validators (chain, (split_part(status, '_', 1)), validator_index);
CREATE INDEX validators_group_balance ON validators (chain, (split_part(status, '_', 1)), balance, validator_index);
-- A validator by public key: qrysm's keys are 2,592 bytes (5,186 characters as 0x-hex), past what a
-- btree entry holds (about 2,700 bytes); a hash index keeps a 4-byte hash per key.
CREATE INDEX validators_pubkey ON validators USING hash (pubkey);

-- Validators per beacon status, rewritten with every write of validators (src/ingest/curated.ts):
-- the list's total under any filter without a count.
CREATE TABLE validator_counts (
  chain      TEXT    NOT NULL,
  status     TEXT    NOT NULL,
  validators INTEGER NOT NULL,
  PRIMARY KEY (chain, status)
);
INSERT INTO validator_counts (chain, status, validators)
SELECT chain, status, count(*)::int FROM validators GROUP BY chain, status;

-- The withdrawals paid from one validator, newest first. A bulk load drops and rebuilds it with the
-- other secondary indexes of withdrawals.
CREATE INDEX withdrawals_validator ON withdrawals (chain, validator_index, height, position);
