-- The chunked layout in Oracle (untested here): the session source kept 4000-byte chunks in
-- VARCHAR2(4000) to avoid LOBs; hakari's chunks are bytes (compressed ones are not text), so
-- they go in RAW(4000), which needs MAX_STRING_SIZE = EXTENDED (Oracle 12c and later).
CREATE TABLE {table} (id VARCHAR2(72) NOT NULL, subid INTEGER NOT NULL, data RAW(4000), updated TIMESTAMP NULL, PRIMARY KEY (id, subid));
