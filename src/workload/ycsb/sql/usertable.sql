-- YCSB's usertable as its JDBC binding makes it (a key and one text column per field; the key
-- VARCHAR(64), not the binding's VARCHAR(255): YCSB's keys are at most 23 characters), under
-- hakari's prefix. {field_columns}, {fields}, {marks} and {assignments} follow --field-count and
-- --field-length (the dialect's text type, for the longest field); {field} is one field; {limit}
-- is the dialect's way to keep the first ? rows.

-- [create]
CREATE TABLE {table} (ycsb_key VARCHAR(64) PRIMARY KEY, {field_columns});

-- [drop]
DROP TABLE IF EXISTS {table};

-- [insert]
INSERT INTO {table} (ycsb_key, {fields}) VALUES (?, {marks});

-- [read]
SELECT {fields} FROM {table} WHERE ycsb_key = ?;

-- [read_field]
SELECT {field} FROM {table} WHERE ycsb_key = ?;

-- [update]
UPDATE {table} SET {field} = ? WHERE ycsb_key = ?;

-- [update_all]
UPDATE {table} SET {assignments} WHERE ycsb_key = ?;

-- [scan]
SELECT ycsb_key, {fields} FROM {table} WHERE ycsb_key >= ? ORDER BY ycsb_key {limit};

-- [scan_field]
SELECT ycsb_key, {field} FROM {table} WHERE ycsb_key >= ? ORDER BY ycsb_key {limit};
