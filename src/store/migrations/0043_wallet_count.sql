-- The running count of wallets (distinct addresses with a user transaction) at the end of each
-- closed day, kept by the active-addresses chart: the wallets before a window are one row, not a
-- sum over the whole history.
ALTER TABLE chain_day_metrics ADD COLUMN wallet_count BIGINT NOT NULL DEFAULT 0;

UPDATE chain_day_metrics m
SET wallet_count = c.wallet_count
FROM (SELECT chain, day, sum(new_wallets) OVER (PARTITION BY chain ORDER BY day) AS wallet_count FROM chain_day_metrics) c
WHERE m.chain = c.chain AND m.day = c.day;
