-- Queries 5 and 6: a 1% or 10% range selection on unique1 (the non-clustered index's).
SELECT * FROM {a} WHERE unique1 BETWEEN {start} AND {end};
