-- Supply figures (docs/metrics.md, "Supply"): kept with the blocks, reverted with them.

-- Per chain and UTC day: successful pow-to-pos migration legs (burns on pow, mints on pos), in the
-- chain's smallest unit. Only days with a leg have a row.
CREATE TABLE chain_migration_daily (
  chain     TEXT          NOT NULL,
  day       DATE          NOT NULL,
  burned    NUMERIC(78,0) NOT NULL DEFAULT 0,
  burn_legs INTEGER       NOT NULL DEFAULT 0,
  minted    NUMERIC(78,0) NOT NULL DEFAULT 0,
  mint_legs INTEGER       NOT NULL DEFAULT 0,
  PRIMARY KEY (chain, day)
);

-- Per chain, totals over the whole indexed history: what a window's "before" figure is read from.
CREATE TABLE chain_supply_totals (
  chain            TEXT          NOT NULL PRIMARY KEY,
  genesis          NUMERIC(78,0) NOT NULL DEFAULT 0, -- genesis allocations
  minted           NUMERIC(78,0) NOT NULL DEFAULT 0, -- sum of chain_daily.minted
  fee_burned       NUMERIC(78,0) NOT NULL DEFAULT 0, -- sum of chain_daily.burned
  migration_burned NUMERIC(78,0) NOT NULL DEFAULT 0,
  migration_minted NUMERIC(78,0) NOT NULL DEFAULT 0
);

-- A store indexed before this migration: the same figures from its raw rows and chain_daily.
INSERT INTO chain_migration_daily (chain, day, burned, burn_legs, minted, mint_legs)
SELECT l.chain, DATE '1970-01-01' + (l.ts / 86400)::int,
       coalesce(sum(l.amount) FILTER (WHERE l.role = 'burn'), 0), count(*) FILTER (WHERE l.role = 'burn'),
       coalesce(sum(l.amount) FILTER (WHERE l.role = 'mint'), 0), count(*) FILTER (WHERE l.role = 'mint')
FROM migration_legs l
JOIN transactions t ON t.chain = l.chain AND t.height = l.height AND t.tx_index = l.tx_index
WHERE t.status IS DISTINCT FROM 0
GROUP BY 1, 2;

INSERT INTO chain_supply_totals (chain, genesis, minted, fee_burned, migration_burned, migration_minted)
SELECT c.chain,
       coalesce((SELECT sum(amount) FROM genesis_allocations g WHERE g.chain = c.chain), 0),
       coalesce((SELECT sum(minted) FROM chain_daily d WHERE d.chain = c.chain), 0),
       coalesce((SELECT sum(burned) FROM chain_daily d WHERE d.chain = c.chain), 0),
       coalesce((SELECT sum(burned) FROM chain_migration_daily m WHERE m.chain = c.chain), 0),
       coalesce((SELECT sum(minted) FROM chain_migration_daily m WHERE m.chain = c.chain), 0)
FROM (SELECT DISTINCT chain FROM chain_daily) c;
