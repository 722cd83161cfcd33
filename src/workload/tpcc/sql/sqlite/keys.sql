-- SQLite (and DuckDB) add no primary key to a table that exists: a unique index is the key.
-- [warehouse]
CREATE UNIQUE INDEX {p}warehouse_key ON {p}warehouse (w_id);
-- [district]
CREATE UNIQUE INDEX {p}district_key ON {p}district (d_w_id, d_id);
-- [customer]
CREATE UNIQUE INDEX {p}customer_key ON {p}customer (c_w_id, c_d_id, c_id);
-- [new_order]
CREATE UNIQUE INDEX {p}new_order_key ON {p}new_order (no_w_id, no_d_id, no_o_id);
-- [orders]
CREATE UNIQUE INDEX {p}orders_key ON {p}orders (o_w_id, o_d_id, o_id);
-- [order_line]
CREATE UNIQUE INDEX {p}order_line_key ON {p}order_line (ol_w_id, ol_d_id, ol_o_id, ol_number);
-- [item]
CREATE UNIQUE INDEX {p}item_key ON {p}item (i_id);
-- [stock]
CREATE UNIQUE INDEX {p}stock_key ON {p}stock (s_w_id, s_i_id);
