-- Migration pairs: each pow burn with the pos mint of the same account id (null until minted).
-- An account id may also appear on a mint whose burn is not indexed (yet); such mints are listed
-- with a null burn side.
CREATE VIEW migration_pairs AS
SELECT coalesce(b.account_id, m.account_id) AS account_id,
       b.tx_hash AS burn_tx, b.height AS burn_height, b.ts AS burn_ts, b.from_addr AS pow_address, b.amount AS burned_shor,
       m.tx_hash AS mint_tx, m.height AS mint_height, m.ts AS mint_ts, m.to_addr AS pos_address, m.amount AS minted_planck
FROM (SELECT * FROM migration_legs WHERE chain = 'pow' AND role = 'burn') b
FULL JOIN (SELECT * FROM migration_legs WHERE chain = 'pos' AND role = 'mint') m ON m.account_id = b.account_id;
