-- Queries 27 and 30: delete one tuple, inserted untimed before.
-- [setup]
INSERT INTO {a} VALUES ({new_tuple});
-- [timed]
DELETE FROM {a} WHERE unique1 = {new_key};
