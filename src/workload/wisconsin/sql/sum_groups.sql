-- Queries 22 and 25: the sum of unique3 in each of 100 groups.
SELECT SUM({a}.unique3) FROM {a} GROUP BY {a}.onePercent;
