-- [blob]
-- The blob layout in Actian Zen (Pervasive PSQL; untested here): the value as LONGVARBINARY.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL PRIMARY KEY, data LONGVARBINARY, updated TIMESTAMP NULL);

-- [chunked]
-- The chunked layout in Actian Zen (untested here): chunks of at most 4000 bytes as BINARY(4000)
-- would pad them; LONGVARBINARY keeps each at its length.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL, subid INTEGER NOT NULL, data LONGVARBINARY, updated TIMESTAMP NULL, PRIMARY KEY (id, subid));
