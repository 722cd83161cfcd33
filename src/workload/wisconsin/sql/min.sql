-- Queries 20 and 23: the minimum of unique2.
SELECT MIN({a}.unique2) FROM {a};
