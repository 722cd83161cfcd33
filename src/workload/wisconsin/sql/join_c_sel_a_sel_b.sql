-- Queries 11 and 14 (joinCselAselB) on unique2. The appendix leaves B out of the FROM list
-- although the predicate names it.
SELECT * FROM {onek}, {a}, {b} WHERE ({onek}.unique2 = {a}.unique2) AND ({a}.unique2 = {b}.unique2) AND ({a}.unique2 < {tenth});
