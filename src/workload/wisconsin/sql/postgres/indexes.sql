-- PostgreSQL rewrites the heap once in the index's order (CLUSTER).
CREATE UNIQUE INDEX {table}_unique2 ON {table} (unique2);
CLUSTER {table} USING {table}_unique2;
CREATE UNIQUE INDEX {table}_unique1 ON {table} (unique1);
