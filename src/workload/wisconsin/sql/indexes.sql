-- The chapter's indexes on a relation: a unique clustered index on unique2 (rows stored in its
-- order), then a unique non-clustered index on unique1. SQLite and DuckDB keep rows in the order
-- they were loaded (unique2's), so a B-tree beside them is as close as they get.
CREATE UNIQUE INDEX {table}_unique2 ON {table} (unique2);
CREATE UNIQUE INDEX {table}_unique1 ON {table} (unique1);
