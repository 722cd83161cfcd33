-- Query 16 (joinABprime) on unique1.
SELECT * FROM {a}, {bprime} WHERE ({a}.unique1 = {bprime}.unique1);
