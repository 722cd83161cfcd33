-- The store mode's result relation (the original's TMP) for one aggregate value.
CREATE TABLE {table} (value BIGINT);
