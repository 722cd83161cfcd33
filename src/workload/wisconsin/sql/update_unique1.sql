-- Query 32: update an indexed non-key attribute; undone untimed.
-- [timed]
UPDATE {a} SET unique1 = {new_key} WHERE unique1 = {key};
-- [undo]
UPDATE {a} SET unique1 = {key} WHERE unique1 = {new_key};
