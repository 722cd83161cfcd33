-- Queries 21 and 24: the minimum of unique3 in each of 100 groups.
SELECT MIN({a}.unique3) FROM {a} GROUP BY {a}.onePercent;
