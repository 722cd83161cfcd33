-- The blob layout in Oracle (untested here): the value as a BLOB kept in the row while it fits
-- (ENABLE STORAGE IN ROW, up to about 4000 bytes), out of line beyond, as the session source did.
CREATE TABLE {table} (id VARCHAR2(72) NOT NULL PRIMARY KEY, data BLOB, updated TIMESTAMP NULL) LOB (data) STORE AS SECUREFILE (ENABLE STORAGE IN ROW);
