-- The primary keys, added after the load (pgbench -i's order: generate, vacuum, primary keys).
ALTER TABLE {p}branches ADD PRIMARY KEY (bid);
ALTER TABLE {p}tellers ADD PRIMARY KEY (tid);
ALTER TABLE {p}accounts ADD PRIMARY KEY (aid);
