-- pow one-time keys (docs/api-ots.md): each signature's XMSS key index under the address whose key
-- made it: the slave for a transaction a slave signed (signer_addr), else the sender. An address's
-- used indexes, its next unused one and its reused ones are then read from its own index range,
-- whatever else the address did. pos rows carry no index and are left out. A bulk load drops and
-- rebuilds it with the other secondary indexes of transactions.
CREATE INDEX transactions_ots ON transactions (chain, (coalesce(signer_addr, from_addr)), ots_index) WHERE ots_index IS NOT NULL;
