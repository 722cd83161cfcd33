-- A Wisconsin relation: 13 integer attributes and 3 strings of 52 characters, with no key
-- and no index (those come later, or never).
CREATE TABLE {table} (unique1 INTEGER NOT NULL, unique2 INTEGER NOT NULL, two INTEGER NOT NULL, four INTEGER NOT NULL, ten INTEGER NOT NULL, twenty INTEGER NOT NULL, onePercent INTEGER NOT NULL, tenPercent INTEGER NOT NULL, twentyPercent INTEGER NOT NULL, fiftyPercent INTEGER NOT NULL, unique3 INTEGER NOT NULL, evenOnePercent INTEGER NOT NULL, oddOnePercent INTEGER NOT NULL, stringu1 CHAR(52) NOT NULL, stringu2 CHAR(52) NOT NULL, string4 CHAR(52) NOT NULL);
