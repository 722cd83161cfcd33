-- The store mode's result relation (the original's TMP) for query 18's six attributes.
CREATE TABLE {table} (two INTEGER NOT NULL, four INTEGER NOT NULL, ten INTEGER NOT NULL, twenty INTEGER NOT NULL, onePercent INTEGER NOT NULL, string4 CHAR(52) NOT NULL);
