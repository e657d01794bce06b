-- The canonical schema of both chains: raw chain data, curated data and the service's own tables.
-- Amounts are NUMERIC(78,0) in the chain's smallest unit (pow: shor, pos: planck). Times are Unix
-- seconds (BIGINT, UTC). Address-keyed tables lead with (chain, address) so that a sharded
-- deployment can distribute them on one column.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- Blocks of the canonical branch. A reorg deletes the abandoned heights and inserts the new ones.
CREATE TABLE blocks (
  chain             TEXT          NOT NULL,
  height            BIGINT        NOT NULL,
  hash              TEXT          NOT NULL,
  parent_hash       TEXT          NOT NULL,
  ts                BIGINT        NOT NULL,
  size              INTEGER       NOT NULL,
  tx_count          INTEGER       NOT NULL,
  miner             TEXT,                             -- pow: coinbase recipient; pos: fee recipient
  reward            NUMERIC(78,0) NOT NULL DEFAULT 0, -- newly minted in this block (pow coinbase reward)
  fees              NUMERIC(78,0) NOT NULL DEFAULT 0, -- fees paid by the block's transactions
  gas_used          BIGINT,
  gas_limit         BIGINT,
  base_fee_per_gas  NUMERIC(78,0),
  burned            NUMERIC(78,0) NOT NULL DEFAULT 0, -- pos: base fee x gas used, destroyed
  priority_fees     NUMERIC(78,0) NOT NULL DEFAULT 0, -- pos: tips paid to the fee recipient
  withdrawals_total NUMERIC(78,0) NOT NULL DEFAULT 0, -- pos: credited by consensus-layer withdrawals
  PRIMARY KEY (chain, height)
);
CREATE UNIQUE INDEX blocks_hash ON blocks (chain, hash);
CREATE INDEX blocks_ts ON blocks (chain, ts);

-- Transactions, one row per logical transaction. Multi-recipient pow transfers keep their
-- recipients in tx_recipients and leave to_addr null.
CREATE TABLE transactions (
  chain                    TEXT          NOT NULL,
  height                   BIGINT        NOT NULL,
  tx_index                 INTEGER       NOT NULL,
  tx_hash                  TEXT          NOT NULL,
  ts                       BIGINT        NOT NULL,
  tx_type                  TEXT          NOT NULL, -- pow subtype, or pos transfer/contract_call/contract_create
  tx_type_evm              SMALLINT,                -- pos: EIP-2718 envelope type
  from_addr                TEXT          NOT NULL,
  to_addr                  TEXT,
  value                    NUMERIC(78,0) NOT NULL DEFAULT 0, -- total native value sent (all recipients)
  fee                      NUMERIC(78,0) NOT NULL DEFAULT 0, -- total fee paid by the sender
  recipient_count          INTEGER       NOT NULL DEFAULT 1,
  nonce                    BIGINT,
  gas                      BIGINT,
  gas_used                 BIGINT,
  gas_price                NUMERIC(78,0),
  effective_gas_price      NUMERIC(78,0),
  max_fee_per_gas          NUMERIC(78,0),
  max_priority_fee_per_gas NUMERIC(78,0),
  burned                   NUMERIC(78,0) NOT NULL DEFAULT 0, -- pos: base fee part of the fee
  contract_address         TEXT,                   -- pos: contract created by this transaction
  status                   SMALLINT,               -- pos: 1 success, 0 reverted
  master_addr              TEXT,                   -- pow: master of the slave key that signed
  signer_addr              TEXT,                   -- pow: address of the signing key when not from_addr (a slave)
  ots_index                INTEGER,                -- pow: XMSS one-time key index of the signature
  input_data               TEXT,                   -- hex
  mints                    BOOLEAN       NOT NULL DEFAULT false, -- new coins: the sender is not debited (coinbase, migration mint)
  PRIMARY KEY (chain, height, tx_index)
);
CREATE UNIQUE INDEX transactions_hash ON transactions (chain, tx_hash);
-- The per-address transaction index: every way an address takes part in a transaction, each an
-- index that leads with (chain, address) and orders by position, newest last. The address feed
-- merges them; see docs/schema.md.
CREATE INDEX transactions_from ON transactions (chain, from_addr, height, tx_index);
CREATE INDEX transactions_to ON transactions (chain, to_addr, height, tx_index) INCLUDE (from_addr) WHERE to_addr IS NOT NULL;
CREATE INDEX transactions_created ON transactions (chain, contract_address, height, tx_index) WHERE contract_address IS NOT NULL;
CREATE INDEX transactions_signer ON transactions (chain, signer_addr, height, tx_index) WHERE signer_addr IS NOT NULL;

CREATE TABLE tx_recipients (
  chain           TEXT          NOT NULL,
  height          BIGINT        NOT NULL,
  tx_index        INTEGER       NOT NULL,
  recipient_index INTEGER       NOT NULL,
  to_addr         TEXT          NOT NULL,
  amount          NUMERIC(78,0) NOT NULL, -- native amount; 0 for token transfers
  PRIMARY KEY (chain, height, tx_index, recipient_index)
);
CREATE INDEX tx_recipients_to ON tx_recipients (chain, to_addr, height, tx_index, recipient_index);

-- pos: value moved by nested call frames (from call traces), never the top-level transfer.
CREATE TABLE internal_txs (
  chain         TEXT          NOT NULL,
  height        BIGINT        NOT NULL,
  tx_index      INTEGER       NOT NULL,
  trace_address TEXT          NOT NULL, -- dot-separated path of the frame, e.g. '0.1'
  tx_hash       TEXT          NOT NULL,
  ts            BIGINT        NOT NULL,
  call_type     TEXT          NOT NULL, -- call, create, create2, selfdestruct, ...
  from_addr     TEXT          NOT NULL,
  to_addr       TEXT          NOT NULL,
  value         NUMERIC(78,0) NOT NULL,
  PRIMARY KEY (chain, height, tx_index, trace_address)
);
CREATE INDEX internal_txs_from ON internal_txs (chain, from_addr, height, tx_index, trace_address);
CREATE INDEX internal_txs_to ON internal_txs (chain, to_addr, height, tx_index, trace_address);

-- Fungible tokens: pos ERC-20 contracts, pow QRL tokens (identified by their creation tx hash).
CREATE TABLE token_contracts (
  chain          TEXT    NOT NULL,
  address        TEXT    NOT NULL,
  name           TEXT,
  symbol         TEXT,
  decimals       INTEGER,
  creator        TEXT,
  created_height BIGINT,
  created_tx     TEXT,
  PRIMARY KEY (chain, address)
);

CREATE TABLE token_transfers (
  chain     TEXT          NOT NULL,
  height    BIGINT        NOT NULL,
  tx_index  INTEGER       NOT NULL,
  log_index INTEGER       NOT NULL,
  tx_hash   TEXT          NOT NULL,
  ts        BIGINT        NOT NULL,
  contract  TEXT          NOT NULL,
  from_addr TEXT          NOT NULL,
  to_addr   TEXT          NOT NULL,
  amount    NUMERIC(78,0) NOT NULL,
  PRIMARY KEY (chain, height, tx_index, log_index)
);
CREATE INDEX token_transfers_contract ON token_transfers (chain, contract, height);
CREATE INDEX token_transfers_from ON token_transfers (chain, from_addr, height);
CREATE INDEX token_transfers_to ON token_transfers (chain, to_addr, height);

-- pow: slave keys registered by a master address (slave transactions).
CREATE TABLE slaves (
  chain          TEXT     NOT NULL,
  slave_address  TEXT     NOT NULL,
  master_address TEXT     NOT NULL,
  access_type    SMALLINT NOT NULL,
  height         BIGINT   NOT NULL,
  tx_index       INTEGER  NOT NULL,
  ts             BIGINT   NOT NULL,
  PRIMARY KEY (chain, slave_address, master_address)
);
CREATE INDEX slaves_master ON slaves (chain, master_address, height, slave_address);
CREATE INDEX slaves_height ON slaves (chain, height);

-- pos: consensus-layer withdrawals credited in a block.
CREATE TABLE withdrawals (
  chain            TEXT          NOT NULL,
  height           BIGINT        NOT NULL,
  position         INTEGER       NOT NULL, -- order within the block
  withdrawal_index BIGINT        NOT NULL,
  validator_index  BIGINT        NOT NULL,
  address          TEXT          NOT NULL,
  amount           NUMERIC(78,0) NOT NULL, -- planck
  ts               BIGINT        NOT NULL,
  PRIMARY KEY (chain, height, position)
);
CREATE INDEX withdrawals_address ON withdrawals (chain, address, height);

-- Balances that exist at genesis (height 0) without a transaction.
CREATE TABLE genesis_allocations (
  chain   TEXT          NOT NULL,
  address TEXT          NOT NULL,
  amount  NUMERIC(78,0) NOT NULL,
  PRIMARY KEY (chain, address)
);

-- pos staking, from the beacon node: the latest state of each validator, and daily figures.
CREATE TABLE validators (
  chain             TEXT          NOT NULL,
  validator_index   BIGINT        NOT NULL,
  pubkey            TEXT          NOT NULL,
  withdrawal_address TEXT,
  status            TEXT          NOT NULL,
  balance           NUMERIC(78,0) NOT NULL, -- planck
  effective_balance NUMERIC(78,0) NOT NULL, -- planck
  slashed           BOOLEAN       NOT NULL DEFAULT false,
  activation_epoch  BIGINT,
  exit_epoch        BIGINT,
  updated_ts        BIGINT        NOT NULL,
  PRIMARY KEY (chain, validator_index)
);

CREATE TABLE staking_daily (
  chain               TEXT          NOT NULL,
  day                 DATE          NOT NULL,
  active_validators   INTEGER       NOT NULL,
  total_staked        NUMERIC(78,0) NOT NULL, -- planck, effective balances of active validators
  rewards             NUMERIC(78,0) NOT NULL, -- planck, net consensus rewards of the day (may be < 0)
  rewarded_validators INTEGER       NOT NULL,
  slashings           INTEGER       NOT NULL,
  nakamoto_33         INTEGER,                -- fewest validators holding more than 33% of stake
  PRIMARY KEY (chain, day)
);

-- Curated labels. One label per address may be primary (the one AddressDetail shows).
CREATE TABLE labels (
  chain      TEXT    NOT NULL,
  address    TEXT    NOT NULL,
  label      TEXT    NOT NULL,
  category   TEXT    NOT NULL, -- exchange, mining_pool, custodial, treasury, contract, migration, ...
  is_primary BOOLEAN NOT NULL DEFAULT false,
  source     TEXT    NOT NULL DEFAULT 'curated',
  PRIMARY KEY (chain, address, label)
);
CREATE UNIQUE INDEX labels_primary ON labels (chain, address) WHERE is_primary;

-- Exchange custody: curated hot and cold wallets, and deposit relays (addresses that forward
-- customer deposits to a hot wallet), each with whether the link is confirmed.
CREATE TABLE exchange_wallets (
  chain     TEXT    NOT NULL,
  address   TEXT    NOT NULL,
  exchange  TEXT    NOT NULL,
  role      TEXT    NOT NULL CHECK (role IN ('hot', 'cold', 'deposit_relay')),
  confirmed BOOLEAN NOT NULL DEFAULT true,
  PRIMARY KEY (chain, address)
);
CREATE INDEX exchange_wallets_exchange ON exchange_wallets (chain, exchange);

-- pow-to-pos migration: a burn on pow and the matching mint on pos share an account id.
CREATE TABLE migration_legs (
  chain      TEXT          NOT NULL,
  height     BIGINT        NOT NULL,
  tx_index   INTEGER       NOT NULL,
  account_id TEXT          NOT NULL,
  role       TEXT          NOT NULL CHECK (role IN ('burn', 'mint')),
  tx_hash    TEXT          NOT NULL,
  ts         BIGINT        NOT NULL,
  from_addr  TEXT          NOT NULL,
  to_addr    TEXT          NOT NULL,
  amount     NUMERIC(78,0) NOT NULL, -- in the chain's smallest unit
  PRIMARY KEY (chain, height, tx_index)
);
CREATE INDEX migration_legs_account ON migration_legs (account_id);
CREATE INDEX migration_legs_from ON migration_legs (chain, from_addr);
CREATE INDEX migration_legs_to ON migration_legs (chain, to_addr);

-- Reorgs the indexer handled: the abandoned hash and its replacement at the fork's first height.
CREATE TABLE reorgs (
  id          BIGSERIAL PRIMARY KEY,
  chain       TEXT    NOT NULL,
  height      BIGINT  NOT NULL,
  prev_hash   TEXT    NOT NULL,
  new_hash    TEXT    NOT NULL,
  depth       INTEGER NOT NULL,
  detected_ts BIGINT  NOT NULL
);
CREATE INDEX reorgs_chain ON reorgs (chain, id);

-- Blocks or items that could not be decoded; the pipeline records them and carries on.
CREATE TABLE dead_letters (
  id          BIGSERIAL PRIMARY KEY,
  chain       TEXT   NOT NULL,
  source      TEXT   NOT NULL,
  height      BIGINT,
  item        TEXT,            -- what failed inside the block (tx hash, receipt, trace), if not the block
  error       TEXT   NOT NULL,
  payload     TEXT,            -- the offending data, truncated
  created_ts  BIGINT NOT NULL,
  resolved_ts BIGINT
);
CREATE INDEX dead_letters_open ON dead_letters (chain) WHERE resolved_ts IS NULL;
-- A replayed range records the same failure once.
CREATE UNIQUE INDEX dead_letters_item ON dead_letters (chain, source, coalesce(height, -1), coalesce(item, ''));

-- Where each indexer stopped: the last block written in full, with its hash, and the last block
-- whose rollup deltas are applied (a bulk load applies them in large steps; a resumed run catches
-- up from the raw rows first).
CREATE TABLE checkpoints (
  chain          TEXT   NOT NULL,
  source         TEXT   NOT NULL,
  height         BIGINT NOT NULL,
  hash           TEXT   NOT NULL,
  rollups_height BIGINT NOT NULL,
  updated_ts     BIGINT NOT NULL,
  PRIMARY KEY (chain, source)
);

-- Settings of the indexed chains that data depends on (migration address, cutover, genesis time).
CREATE TABLE chain_settings (
  chain TEXT NOT NULL,
  key   TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (chain, key)
);

-- Issued API keys. Only a SHA-256 of the key is kept, with a short prefix to recognise it by.
CREATE TABLE api_keys (
  id         BIGSERIAL PRIMARY KEY,
  name       TEXT   NOT NULL,
  key_hash   TEXT   NOT NULL UNIQUE,
  prefix     TEXT   NOT NULL,
  created_ts BIGINT NOT NULL,
  revoked_ts BIGINT
);
