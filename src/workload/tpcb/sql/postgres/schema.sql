-- TPC-B tables as pgbench -i makes them on PostgreSQL: without their keys, which
-- postgres/keys.sql adds once the rows are in (an index built once is faster than one
-- maintained row by row). {p} is the table-set prefix; {bigint} the 64-bit integer type.
CREATE TABLE {p}branches (bid INTEGER NOT NULL, bbalance {bigint} NOT NULL, filler CHAR(88));
CREATE TABLE {p}tellers (tid INTEGER NOT NULL, bid INTEGER NOT NULL, tbalance {bigint} NOT NULL, filler CHAR(84));
CREATE TABLE {p}accounts (aid INTEGER NOT NULL, bid INTEGER NOT NULL, abalance {bigint} NOT NULL, filler CHAR(84));
CREATE TABLE {p}history (tid INTEGER NOT NULL, bid INTEGER NOT NULL, aid INTEGER NOT NULL, delta {bigint} NOT NULL, mtime TIMESTAMP NOT NULL, filler CHAR(22));
