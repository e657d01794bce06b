-- The search's text lookups (GET /api/v1/search, docs/api-search.md): labels and token names and
-- symbols by case-insensitive prefix. Each index holds the lowercase text in the "C" collation, so
-- that `lower(x) COLLATE "C" LIKE 'prefix%'` is a range of the index whatever the database's
-- collation, and the index's order (bytes of the lowercase text, then chain and address) is the
-- order the search walks the distinct texts in and takes each text's first entries of a chain in.
CREATE INDEX labels_text_prefix ON labels ((lower(label)) COLLATE "C", chain, address);
CREATE INDEX token_contracts_symbol_prefix ON token_contracts ((lower(symbol)) COLLATE "C", chain, address) WHERE symbol IS NOT NULL;
CREATE INDEX token_contracts_name_prefix ON token_contracts ((lower(name)) COLLATE "C", chain, address) WHERE name IS NOT NULL;
