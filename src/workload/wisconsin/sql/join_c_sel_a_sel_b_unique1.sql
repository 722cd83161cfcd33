-- Query 17 (joinCselAselB) on unique1.
SELECT * FROM {onek}, {a}, {b} WHERE ({onek}.unique1 = {a}.unique1) AND ({a}.unique1 = {b}.unique1) AND ({a}.unique1 < {tenth});
