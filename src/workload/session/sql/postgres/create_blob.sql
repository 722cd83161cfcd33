-- The blob layout in PostgreSQL: the large value as BYTEA.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL PRIMARY KEY, data BYTEA, updated TIMESTAMP NULL);
