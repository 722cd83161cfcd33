-- TPC-B tables, padded to the specification's record sizes (100 bytes; history 50 bytes).
-- {p} is the table-set prefix: hakari owns every table whose name starts with it. {bigint} is
-- the dialect's 64-bit integer type.
CREATE TABLE {p}branches (bid INTEGER NOT NULL PRIMARY KEY, bbalance {bigint} NOT NULL, filler CHAR(88));
CREATE TABLE {p}tellers (tid INTEGER NOT NULL PRIMARY KEY, bid INTEGER NOT NULL, tbalance {bigint} NOT NULL, filler CHAR(84));
CREATE TABLE {p}accounts (aid INTEGER NOT NULL PRIMARY KEY, bid INTEGER NOT NULL, abalance {bigint} NOT NULL, filler CHAR(84));
CREATE TABLE {p}history (tid INTEGER NOT NULL, bid INTEGER NOT NULL, aid INTEGER NOT NULL, delta {bigint} NOT NULL, mtime TIMESTAMP NOT NULL, filler CHAR(22));
