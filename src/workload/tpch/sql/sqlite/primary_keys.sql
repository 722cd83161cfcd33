-- SQLite cannot add a primary key to a table: its keys are unique indexes.
CREATE UNIQUE INDEX i_region_0 ON region (r_regionkey);
CREATE UNIQUE INDEX i_nation_1 ON nation (n_nationkey);
CREATE UNIQUE INDEX i_part_2 ON part (p_partkey);
CREATE UNIQUE INDEX i_supplier_3 ON supplier (s_suppkey);
CREATE UNIQUE INDEX i_partsupp_4 ON partsupp (ps_partkey, ps_suppkey);
CREATE UNIQUE INDEX i_customer_5 ON customer (c_custkey);
CREATE UNIQUE INDEX i_orders_6 ON orders (o_orderkey);
CREATE UNIQUE INDEX i_lineitem_7 ON lineitem (l_orderkey, l_linenumber);
