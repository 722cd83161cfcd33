-- The chunked layout in PostgreSQL: chunks as BYTEA.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL, subid INTEGER NOT NULL, data BYTEA, updated TIMESTAMP NULL, PRIMARY KEY (id, subid));
