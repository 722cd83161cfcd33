-- The blob layout's statements (every dialect).
-- [insert]
INSERT INTO {table} (id, data, updated) VALUES (?, ?, CURRENT_TIMESTAMP);
-- [select]
SELECT data FROM {table} WHERE id = ?;
-- [delete]
DELETE FROM {table} WHERE id = ?;
-- [drop]
DROP TABLE IF EXISTS {table};
