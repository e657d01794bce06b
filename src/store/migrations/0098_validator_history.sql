-- pos staking per validator, from the beacon node (src/ingest/staking-sync.ts, docs/api-validators.md).

-- Each validator's day: its state at the day's last processed slot (the slot staking_daily reads)
-- and its net consensus rewards over the day's finalized epochs (attestations, proposals, sync
-- committee, less the initial slashing penalty; may be negative). One row per validator of that
-- state per synced day, written with the day's staking_daily row and rewritten with it.
CREATE TABLE validator_days (
  chain             TEXT          NOT NULL,
  validator_index   BIGINT        NOT NULL,
  day               DATE          NOT NULL,
  status            TEXT          NOT NULL,
  balance           NUMERIC(78,0) NOT NULL, -- planck
  effective_balance NUMERIC(78,0) NOT NULL, -- planck
  rewards           NUMERIC(78,0) NOT NULL, -- planck, signed
  PRIMARY KEY (chain, validator_index, day)
);

-- The proposer of each slot's block in the synced (finalized) epochs, from the beacon node's block
-- rewards; an empty slot has no row. `ts` is the slot's start, which is the execution payload's
-- timestamp (qrysm's ValidatePayload), so the pos block stored with that timestamp is the slot's.
CREATE TABLE slot_proposers (
  chain          TEXT          NOT NULL,
  slot           BIGINT        NOT NULL,
  ts             BIGINT        NOT NULL,
  proposer_index BIGINT        NOT NULL,
  reward         NUMERIC(78,0) NOT NULL, -- planck: the proposer's consensus reward for the block
  PRIMARY KEY (chain, slot)
);
-- A block page's proposer: the slot at the block's timestamp.
CREATE UNIQUE INDEX slot_proposers_ts ON slot_proposers (chain, ts);
-- A validator's proposals, newest first.
CREATE INDEX slot_proposers_proposer ON slot_proposers (chain, proposer_index, slot);
