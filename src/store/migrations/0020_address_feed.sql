-- Indexes of the per-address endpoints (docs/api-addresses.md, "How the endpoints stay fast").

-- The transaction feed lists one row per recipient. A sender's first row comes from the plain
-- per-address indexes of 0001; how many rows its multi-recipient transactions have, from these
-- small partial indexes, read index-only (with the time, to count the rows of a day, and the type).
CREATE INDEX transactions_from_multi ON transactions (chain, from_addr, height, tx_index)
  INCLUDE (recipient_count, ts, tx_type) WHERE recipient_count > 1;
CREATE INDEX transactions_signer_multi ON transactions (chain, signer_addr, height, tx_index)
  INCLUDE (recipient_count, ts, tx_type) WHERE signer_addr IS NOT NULL AND recipient_count > 1;
-- Recipient-list entries past the first: where an address can appear twice in one transaction.
CREATE INDEX tx_recipients_multi ON tx_recipients (chain, to_addr, height, tx_index, recipient_index) WHERE recipient_index > 0;

-- The feed's tx_type filter: the same per-address orders within one type, so that a page (and a
-- count) of a rare type never walks the address's other transactions.
CREATE INDEX transactions_from_type ON transactions (chain, from_addr, tx_type, height, tx_index);
CREATE INDEX transactions_to_type ON transactions (chain, to_addr, tx_type, height, tx_index) WHERE to_addr IS NOT NULL;
CREATE INDEX transactions_signer_type ON transactions (chain, signer_addr, tx_type, height, tx_index) WHERE signer_addr IS NOT NULL;
-- Recipient-list entries that move no native value: those of transfer_token transactions.
CREATE INDEX tx_recipients_to_zero ON tx_recipients (chain, to_addr, height, tx_index, recipient_index) WHERE amount = 0;

-- Counterparties: the top of an address's list by each ranking without sorting all its pairs.
-- Most pairs have one transaction; those rank by address after the others (the primary key's
-- order), so the ranking by count only needs the pairs with two or more.
CREATE INDEX address_counterparties_by_count ON address_counterparties (chain, address, tx_count DESC, counterparty) WHERE tx_count >= 2;
CREATE INDEX address_counterparties_by_sent ON address_counterparties (chain, address, sent_count DESC, counterparty) WHERE sent_count > 0;
CREATE INDEX address_counterparties_by_received ON address_counterparties (chain, address, received_count DESC, counterparty) WHERE received_count > 0;
