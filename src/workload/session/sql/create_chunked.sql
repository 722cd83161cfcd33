-- The chunked layout: rows of at most 4000 bytes (Oracle's VARCHAR2 limit, used to avoid LOBs)
-- keyed by (id, subid), read back in subid order.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL, subid INTEGER NOT NULL, data BLOB, updated TIMESTAMP NULL, PRIMARY KEY (id, subid));
