-- Queries 10 and 13 (joinABprime): A joined with BPRIME on unique2.
SELECT * FROM {a}, {bprime} WHERE ({a}.unique2 = {bprime}.unique2);
