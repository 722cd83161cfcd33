-- The blob layout: one row per session. Each engine's natural type for a large value (SQLite,
-- DuckDB: BLOB; sql/postgres: BYTEA; sql/mysql: LONGBLOB).
CREATE TABLE {table} (id VARCHAR(72) NOT NULL PRIMARY KEY, data BLOB, updated TIMESTAMP NULL);
