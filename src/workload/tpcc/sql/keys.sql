-- The keys of §1.3 (warehouse first; history has none) and the two secondary indexes, made once
-- the rows are in.
-- [warehouse]
ALTER TABLE {p}warehouse ADD PRIMARY KEY (w_id);
-- [district]
ALTER TABLE {p}district ADD PRIMARY KEY (d_w_id, d_id);
-- [customer]
ALTER TABLE {p}customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id);
-- [new_order]
ALTER TABLE {p}new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id);
-- [orders]
ALTER TABLE {p}orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id);
-- [order_line]
ALTER TABLE {p}order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number);
-- [item]
ALTER TABLE {p}item ADD PRIMARY KEY (i_id);
-- [stock]
ALTER TABLE {p}stock ADD PRIMARY KEY (s_w_id, s_i_id);
-- [customer_name]
CREATE INDEX {p}customer_name ON {p}customer (c_w_id, c_d_id, c_last, c_first);
-- [orders_customer]
CREATE INDEX {p}orders_customer ON {p}orders (o_w_id, o_d_id, o_c_id, o_id);
