-- InnoDB clusters rows on the primary key.
ALTER TABLE {table} ADD PRIMARY KEY (unique2);
CREATE UNIQUE INDEX {table}_unique1 ON {table} (unique1);
