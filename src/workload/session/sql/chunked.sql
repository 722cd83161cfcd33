-- The chunked layout's statements (every dialect).
-- [insert]
INSERT INTO {table} (id, subid, data, updated) VALUES (?, ?, ?, CURRENT_TIMESTAMP);
-- [select]
SELECT data FROM {table} WHERE id = ? ORDER BY subid;
-- [delete]
DELETE FROM {table} WHERE id = ?;
-- [drop]
DROP TABLE IF EXISTS {table};
