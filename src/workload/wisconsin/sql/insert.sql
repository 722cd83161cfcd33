-- Queries 26 and 29: insert one tuple, a consistent new one above every key (the appendix's
-- literal collides with unique2 74 and carries the 1983 schema's values); undone untimed.
-- [timed]
INSERT INTO {a} VALUES ({new_tuple});
-- [undo]
DELETE FROM {a} WHERE unique1 = {new_key};
