-- Queries 28 and 31: update the key attribute; undone untimed, so every run finds the tuple.
-- [timed]
UPDATE {a} SET unique2 = {new_key} WHERE unique2 = {key};
-- [undo]
UPDATE {a} SET unique2 = {key} WHERE unique2 = {new_key};
