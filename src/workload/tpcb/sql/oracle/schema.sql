-- TPC-B tables in Oracle (untested here): as sql/schema.sql with NUMBER(19) for BIGINT, which
-- Oracle does not have.
CREATE TABLE {p}branches (bid INTEGER NOT NULL PRIMARY KEY, bbalance NUMBER(19) NOT NULL, filler CHAR(88));
CREATE TABLE {p}tellers (tid INTEGER NOT NULL PRIMARY KEY, bid INTEGER NOT NULL, tbalance NUMBER(19) NOT NULL, filler CHAR(84));
CREATE TABLE {p}accounts (aid INTEGER NOT NULL PRIMARY KEY, bid INTEGER NOT NULL, abalance NUMBER(19) NOT NULL, filler CHAR(84));
CREATE TABLE {p}history (tid INTEGER NOT NULL, bid INTEGER NOT NULL, aid INTEGER NOT NULL, delta NUMBER(19) NOT NULL, mtime TIMESTAMP NOT NULL, filler CHAR(22));
