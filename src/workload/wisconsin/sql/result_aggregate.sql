-- The store mode's result relation (the original's TMP) for one aggregate value ({bigint}: the
-- dialect's 64-bit integer type).
CREATE TABLE {table} (value {bigint});
