-- Queries 9 and 12 (joinAselB): A joined with a 10% selection of B on unique2.
SELECT * FROM {a}, {b} WHERE ({a}.unique2 = {b}.unique2) AND ({b}.unique2 < {tenth});
