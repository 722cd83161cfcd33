-- What the workload does to whole relations, besides creating them (relation.sql) and indexing
-- them (indexes.sql).
-- [drop]
DROP TABLE IF EXISTS {table};
-- [bprime]
-- BPRIME: the first tenth of TENKTUP2, as the chapter builds it.
INSERT INTO {bprime} SELECT * FROM {tenk2} WHERE unique2 < {tenth};
-- [count]
SELECT COUNT(*) FROM {table};
-- [store]
-- The store mode's timed statement: the query's rows into the result relation, as the original.
INSERT INTO {tmp} {select};
-- [read_back]
SELECT * FROM {tmp};
-- [drop_tmp]
DROP TABLE {tmp};
-- [count_from]
-- The count mode of a plain `SELECT *`: its FROM and WHERE counted directly (a derived table of
-- a join would repeat column names).
SELECT COUNT(*) FROM {from_where};
-- [count_derived]
SELECT COUNT(*) FROM ({select}) hakari_sub;
