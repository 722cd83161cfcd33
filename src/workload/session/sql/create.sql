-- The session store's tables, one statement a layout; sql/<dialect>/create.sql overrides one by
-- name where the dialect's type for a large value or a chunk differs.

-- [blob]
-- The blob layout: one row per session. Each engine's natural type for a large value (SQLite,
-- DuckDB: BLOB; sql/postgres: BYTEA; sql/mysql: LONGBLOB).
CREATE TABLE {table} (id VARCHAR(72) NOT NULL PRIMARY KEY, data BLOB, updated TIMESTAMP NULL);

-- [chunked]
-- The chunked layout: rows of at most 4000 bytes (Oracle's VARCHAR2 limit, used to avoid LOBs)
-- keyed by (id, subid), read back in subid order.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL, subid INTEGER NOT NULL, data BLOB, updated TIMESTAMP NULL, PRIMARY KEY (id, subid));
