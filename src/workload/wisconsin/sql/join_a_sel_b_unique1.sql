-- Query 15 (joinAselB) on unique1, in the appendix's wording (A.unique2 < N/10); Derby and
-- TimesTen filter on unique1.
SELECT * FROM {a}, {b} WHERE ({a}.unique1 = {b}.unique1) AND ({a}.unique2 < {tenth});
