-- After the primary keys: indexes on the foreign keys and the dates the queries filter on.
CREATE INDEX i_nation_8 ON nation (n_regionkey);
CREATE INDEX i_supplier_9 ON supplier (s_nationkey);
CREATE INDEX i_partsupp_10 ON partsupp (ps_suppkey);
CREATE INDEX i_customer_11 ON customer (c_nationkey);
CREATE INDEX i_orders_12 ON orders (o_custkey);
CREATE INDEX i_orders_13 ON orders (o_orderdate);
CREATE INDEX i_lineitem_14 ON lineitem (l_partkey, l_suppkey);
CREATE INDEX i_lineitem_15 ON lineitem (l_suppkey);
CREATE INDEX i_lineitem_16 ON lineitem (l_shipdate);
