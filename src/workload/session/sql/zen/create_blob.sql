-- The blob layout in Actian Zen (Pervasive PSQL; untested here): the value as LONGVARBINARY.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL PRIMARY KEY, data LONGVARBINARY, updated TIMESTAMP NULL);
