-- Pending transactions (GET /api/v1/{chain}/transactions/pending, docs/api-transactions.md): what a
-- following indexer last read from its node's pool (pos txpool_content, pow GetLatestData's
-- unconfirmed transactions) and has not seen mined. At most PENDING_CAP rows per chain
-- (src/ingest/pending.ts): while the node's pool holds more, the newest are not stored. A row is
-- deleted when its transaction is written in a block (src/ingest/raw-store.ts) or when a later
-- complete read of the pool no longer holds it (dropped). A record of the run, like reorgs.
CREATE TABLE pending_txs (
  chain                    TEXT          NOT NULL,
  tx_hash                  TEXT          NOT NULL,
  first_seen               BIGINT        NOT NULL, -- when a poll first stored it (Unix seconds)
  pool                     TEXT          NOT NULL, -- pos: 'pending' (executable) or 'queued' (waits for a nonce); pow: 'pending'
  tx_type                  TEXT          NOT NULL,
  tx_type_evm              INTEGER,
  from_addr                TEXT          NOT NULL,
  to_addr                  TEXT,                   -- null on a pos contract creation and a multi-recipient pow transfer
  value                    NUMERIC(78,0) NOT NULL,
  recipient_count          INTEGER       NOT NULL,
  fee                      NUMERIC(78,0),          -- pow: the fee it pays; pos: null (known once mined)
  nonce                    BIGINT,
  gas                      BIGINT,
  gas_price                NUMERIC(78,0),
  max_fee_per_gas          NUMERIC(78,0),
  max_priority_fee_per_gas NUMERIC(78,0),
  PRIMARY KEY (chain, tx_hash)
);
-- The list: newest first seen first, keyset on (first_seen, tx_hash).
CREATE INDEX pending_txs_seen ON pending_txs (chain, first_seen, tx_hash);

-- How each chain's pool polling goes: one row per chain, written at the end of every poll. The API
-- shows the pending list only while ok_ts is recent and stopped_ts is null (docs/api-transactions.md).
CREATE TABLE pending_polls (
  chain        TEXT    PRIMARY KEY,
  method       TEXT    NOT NULL, -- the node method read: txpool_content, GetLatestData
  interval_ms  INTEGER NOT NULL, -- the indexer's poll interval
  polled_ts    BIGINT  NOT NULL, -- when the last poll ended, whether or not it read the pool
  ok_ts        BIGINT,           -- when a poll last read the pool
  pool_size    INTEGER,          -- transactions the node's pool held at ok_ts
  error        TEXT,             -- why the last poll did not read the pool; null when it did
  stopped_ts   BIGINT            -- when the indexer stopped following; null while it follows
);
