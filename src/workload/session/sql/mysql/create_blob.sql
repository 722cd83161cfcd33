-- The blob layout in MariaDB and MySQL: the large value as LONGBLOB, in InnoDB.
CREATE TABLE {table} (id VARCHAR(72) NOT NULL PRIMARY KEY, data LONGBLOB, updated TIMESTAMP NULL) ENGINE=InnoDB;
