-- The token routes (GET /api/v1/{chain}/tokens…, docs/api-tokens.md).

-- Per token: its holders (addresses with a positive balance, sentinels excluded), its transfers,
-- its supply (minted from a sentinel less burned to one) and the first block it moved in, kept by
-- the token_stats rollup (src/rollups/tokens/token-stats.ts). A pos token is keyed by its contract,
-- a pow token by its creating transaction's hash, as token_transfers.contract is.
CREATE TABLE token_stats (
  chain        TEXT          NOT NULL,
  contract     TEXT          NOT NULL,
  holders      INTEGER       NOT NULL DEFAULT 0,
  transfers    BIGINT        NOT NULL DEFAULT 0,
  supply       NUMERIC(78,0) NOT NULL DEFAULT 0,
  first_height BIGINT        NOT NULL,
  PRIMARY KEY (chain, contract)
);
-- The list's three orders, each read backwards from a keyset cursor.
CREATE INDEX token_stats_holders ON token_stats (chain, holders, contract);
CREATE INDEX token_stats_transfers ON token_stats (chain, transfers, contract);
CREATE INDEX token_stats_newest ON token_stats (chain, first_height, contract);

-- Per token and UTC day: its transfers, and the holders it gained less those it lost (the day's
-- holders are the running sum). Kept by the same rollup; a token's daily series reads its window.
CREATE TABLE token_daily (
  chain         TEXT    NOT NULL,
  contract      TEXT    NOT NULL,
  day           DATE    NOT NULL,
  transfers     INTEGER NOT NULL DEFAULT 0,
  holders_delta INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (chain, contract, day)
);

-- A token's holders, richest first: a keyset over (balance, address) read backwards, whatever the depth.
CREATE INDEX token_balances_holders ON token_balances (chain, contract, balance, address) WHERE balance > 0;

-- A token's transfers, newest first: its rows in chain order, read backwards from a keyset cursor.
-- It replaces the index on (chain, contract, height), whose order stops at the height. A bulk load
-- drops and rebuilds it with the other secondary indexes of token_transfers.
CREATE INDEX token_transfers_contract_position ON token_transfers (chain, contract, height, tx_index, log_index);
DROP INDEX token_transfers_contract;

-- The list's name and symbol filter: a prefix, ASCII letters in either case (lower() under the C
-- collation folds A-Z only, the same on every server's locale), as a range of the folded text.
CREATE INDEX token_contracts_name ON token_contracts (chain, lower(name COLLATE "C") text_pattern_ops);
CREATE INDEX token_contracts_symbol ON token_contracts (chain, lower(symbol COLLATE "C") text_pattern_ops);

ALTER TABLE token_stats SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
ALTER TABLE token_daily SET (autovacuum_vacuum_insert_scale_factor = 0.01, autovacuum_vacuum_scale_factor = 0.01);
