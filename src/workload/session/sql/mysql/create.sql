-- [blob]
-- The blob layout in MariaDB and MySQL: the large value as LONGBLOB, in InnoDB.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL PRIMARY KEY, data LONGBLOB, updated TIMESTAMP NULL) ENGINE=InnoDB;

-- [chunked]
-- The chunked layout in MariaDB and MySQL: chunks as VARBINARY(4000), in InnoDB.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL, subid INTEGER NOT NULL, data VARBINARY(4000), updated TIMESTAMP NULL, PRIMARY KEY (id, subid)) ENGINE=InnoDB;
