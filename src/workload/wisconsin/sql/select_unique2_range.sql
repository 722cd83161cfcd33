-- Queries 1-4 and 8: a 1% or 10% range selection on unique2 (the clustered index's attribute).
SELECT * FROM {a} WHERE unique2 BETWEEN {start} AND {end};
