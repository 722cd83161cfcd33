-- Built after the load, as DBT-3 does: the primary keys, then indexes on the foreign keys and
-- the dates the queries filter on.
ALTER TABLE region ADD PRIMARY KEY (r_regionkey);
ALTER TABLE nation ADD PRIMARY KEY (n_nationkey);
ALTER TABLE part ADD PRIMARY KEY (p_partkey);
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey);
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey);
ALTER TABLE customer ADD PRIMARY KEY (c_custkey);
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey);
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber);
CREATE INDEX i_nation_8 ON nation (n_regionkey);
CREATE INDEX i_supplier_9 ON supplier (s_nationkey);
CREATE INDEX i_partsupp_10 ON partsupp (ps_suppkey);
CREATE INDEX i_customer_11 ON customer (c_nationkey);
CREATE INDEX i_orders_12 ON orders (o_custkey);
CREATE INDEX i_orders_13 ON orders (o_orderdate);
CREATE INDEX i_lineitem_14 ON lineitem (l_partkey, l_suppkey);
CREATE INDEX i_lineitem_15 ON lineitem (l_suppkey);
CREATE INDEX i_lineitem_16 ON lineitem (l_shipdate);
