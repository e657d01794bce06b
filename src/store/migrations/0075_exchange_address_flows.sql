-- Per address and UTC day: value the address deposited into (sent to) and withdrew from (received
-- from) confirmed exchange addresses, for the addresses that are not themselves exchange addresses
-- (docs/metrics.md, "Whales", exchange flow). Kept beside exchange_flow_daily from the same
-- classified transfers, so a whale window reads its whales' rows instead of their transactions.
-- Days without a flow have no row.
CREATE TABLE exchange_address_flow_daily (
  chain          TEXT          NOT NULL,
  address        TEXT          NOT NULL,
  day            DATE          NOT NULL,
  deposits       NUMERIC(78,0) NOT NULL,
  withdrawals    NUMERIC(78,0) NOT NULL,
  deposit_txs    INTEGER       NOT NULL,
  withdrawal_txs INTEGER       NOT NULL,
  PRIMARY KEY (chain, address, day)
);

-- A store indexed before this table: its flows from the raw rows, classified as the rollup does
-- (src/rollups/exchange/moves.ts: transfers of value > 0, not reverted, not mints, each recipient of
-- a multi-recipient transfer one transfer).
INSERT INTO exchange_address_flow_daily (chain, address, day, deposits, withdrawals, deposit_txs, withdrawal_txs)
SELECT chain, address, day, sum(dep), sum(wd), sum(dc), sum(wc)
FROM (
  SELECT m.chain, CASE WHEN tw.exchange IS NOT NULL THEN m.from_addr ELSE m.to_addr END AS address,
         DATE '1970-01-01' + (m.ts / 86400)::int AS day,
         CASE WHEN tw.exchange IS NOT NULL THEN m.value ELSE 0 END AS dep,
         CASE WHEN tw.exchange IS NULL THEN m.value ELSE 0 END AS wd,
         CASE WHEN tw.exchange IS NOT NULL THEN 1 ELSE 0 END AS dc,
         CASE WHEN tw.exchange IS NULL THEN 1 ELSE 0 END AS wc
  FROM (
    SELECT t.chain, t.ts, t.from_addr, t.to_addr, t.value
    FROM transactions t
    WHERE t.to_addr IS NOT NULL AND t.value > 0 AND t.status IS DISTINCT FROM 0 AND NOT t.mints
    UNION ALL
    SELECT t.chain, t.ts, t.from_addr, r.to_addr, r.amount
    FROM tx_recipients r
    JOIN transactions t ON t.chain = r.chain AND t.height = r.height AND t.tx_index = r.tx_index
    WHERE r.amount > 0 AND t.to_addr IS NULL AND t.status IS DISTINCT FROM 0 AND NOT t.mints
  ) m
  LEFT JOIN exchange_wallets fw ON fw.chain = m.chain AND fw.address = m.from_addr AND fw.confirmed
  LEFT JOIN exchange_wallets tw ON tw.chain = m.chain AND tw.address = m.to_addr AND tw.confirmed
  WHERE (fw.exchange IS NULL) <> (tw.exchange IS NULL)
) x
GROUP BY chain, address, day;
