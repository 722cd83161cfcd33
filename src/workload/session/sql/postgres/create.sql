-- [blob]
-- The blob layout in PostgreSQL: the large value as BYTEA.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL PRIMARY KEY, data BYTEA, updated TIMESTAMP NULL);

-- [chunked]
-- The chunked layout in PostgreSQL: chunks as BYTEA.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL, subid INTEGER NOT NULL, data BYTEA, updated TIMESTAMP NULL, PRIMARY KEY (id, subid));
