-- [blob]
-- The blob layout in Oracle (untested here): the value as a BLOB kept in the row while it fits
-- (ENABLE STORAGE IN ROW, up to about 4000 bytes), out of line beyond, as the session source did.
CREATE TABLE {table} (id VARCHAR2(72) NOT NULL PRIMARY KEY, data BLOB, updated TIMESTAMP NULL) LOB (data) STORE AS SECUREFILE (ENABLE STORAGE IN ROW);

-- [chunked]
-- The chunked layout in Oracle (untested here): the session source kept 4000-byte chunks in
-- VARCHAR2(4000) to avoid LOBs; hakari's chunks are bytes (compressed ones are not text), so
-- they go in RAW(4000), which needs MAX_STRING_SIZE = EXTENDED (Oracle 12c and later).
CREATE TABLE {table} (id VARCHAR2(72) NOT NULL, subid INTEGER NOT NULL, data RAW(4000), updated TIMESTAMP NULL, PRIMARY KEY (id, subid));
