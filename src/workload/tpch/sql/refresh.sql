-- The refresh functions' statements beside the bulk load of RF1's new rows: RF2 deletes old
-- orders and their lineitems by key (500 keys per statement); the counts check afterwards that a
-- run's refreshes left the tables as loaded.
-- [delete_lineitem]
DELETE FROM lineitem WHERE l_orderkey IN ({keys});
-- [delete_orders]
DELETE FROM orders WHERE o_orderkey IN ({keys});
-- [count_orders]
SELECT count(*) FROM orders;
-- [count_lineitem]
SELECT count(*) FROM lineitem;
