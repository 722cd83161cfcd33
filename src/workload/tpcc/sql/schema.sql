-- TPC-C's nine tables (§1.3), without keys: the keys come after the load (keys.sql).
-- {ytd}, {amount}, {price} and {rate} are exact decimals, or integer cents (and ten-thousandths
-- for {rate}) where the engine has no exact decimal.
-- [warehouse]
CREATE TABLE {p}warehouse (
  w_id INTEGER NOT NULL,
  w_name VARCHAR(10),
  w_street_1 VARCHAR(20),
  w_street_2 VARCHAR(20),
  w_city VARCHAR(20),
  w_state CHAR(2),
  w_zip CHAR(9),
  w_tax {rate},
  w_ytd {ytd}
);
-- [district]
CREATE TABLE {p}district (
  d_id INTEGER NOT NULL,
  d_w_id INTEGER NOT NULL,
  d_name VARCHAR(10),
  d_street_1 VARCHAR(20),
  d_street_2 VARCHAR(20),
  d_city VARCHAR(20),
  d_state CHAR(2),
  d_zip CHAR(9),
  d_tax {rate},
  d_ytd {ytd},
  d_next_o_id INTEGER
);
-- [customer]
CREATE TABLE {p}customer (
  c_id INTEGER NOT NULL,
  c_d_id INTEGER NOT NULL,
  c_w_id INTEGER NOT NULL,
  c_first VARCHAR(16),
  c_middle CHAR(2),
  c_last VARCHAR(16),
  c_street_1 VARCHAR(20),
  c_street_2 VARCHAR(20),
  c_city VARCHAR(20),
  c_state CHAR(2),
  c_zip CHAR(9),
  c_phone CHAR(16),
  c_since {timestamp},
  c_credit CHAR(2),
  c_credit_lim {ytd},
  c_discount {rate},
  c_balance {ytd},
  c_ytd_payment {ytd},
  c_payment_cnt INTEGER,
  c_delivery_cnt INTEGER,
  c_data VARCHAR(500)
);
-- [history]
CREATE TABLE {p}history (
  h_c_id INTEGER,
  h_c_d_id INTEGER,
  h_c_w_id INTEGER,
  h_d_id INTEGER,
  h_w_id INTEGER,
  h_date {timestamp},
  h_amount {amount},
  h_data VARCHAR(24)
);
-- [new_order]
CREATE TABLE {p}new_order (
  no_o_id INTEGER NOT NULL,
  no_d_id INTEGER NOT NULL,
  no_w_id INTEGER NOT NULL
);
-- [orders]
CREATE TABLE {p}orders (
  o_id INTEGER NOT NULL,
  o_d_id INTEGER NOT NULL,
  o_w_id INTEGER NOT NULL,
  o_c_id INTEGER,
  o_entry_d {timestamp},
  o_carrier_id INTEGER,
  o_ol_cnt INTEGER,
  o_all_local INTEGER
);
-- [order_line]
CREATE TABLE {p}order_line (
  ol_o_id INTEGER NOT NULL,
  ol_d_id INTEGER NOT NULL,
  ol_w_id INTEGER NOT NULL,
  ol_number INTEGER NOT NULL,
  ol_i_id INTEGER,
  ol_supply_w_id INTEGER,
  ol_delivery_d {timestamp},
  ol_quantity INTEGER,
  ol_amount {amount},
  ol_dist_info CHAR(24)
);
-- [item]
CREATE TABLE {p}item (
  i_id INTEGER NOT NULL,
  i_im_id INTEGER,
  i_name VARCHAR(24),
  i_price {price},
  i_data VARCHAR(50)
);
-- [stock]
CREATE TABLE {p}stock (
  s_i_id INTEGER NOT NULL,
  s_w_id INTEGER NOT NULL,
  s_quantity INTEGER,
  s_dist_01 CHAR(24),
  s_dist_02 CHAR(24),
  s_dist_03 CHAR(24),
  s_dist_04 CHAR(24),
  s_dist_05 CHAR(24),
  s_dist_06 CHAR(24),
  s_dist_07 CHAR(24),
  s_dist_08 CHAR(24),
  s_dist_09 CHAR(24),
  s_dist_10 CHAR(24),
  s_ytd INTEGER,
  s_order_cnt INTEGER,
  s_remote_cnt INTEGER,
  s_data VARCHAR(50)
);
-- [meta]
CREATE TABLE {p}meta (
  warehouses INTEGER NOT NULL,
  seed VARCHAR(20) NOT NULL,
  c_last INTEGER NOT NULL,
  c_id INTEGER NOT NULL,
  ol_i_id INTEGER NOT NULL,
  loaded_at VARCHAR(40) NOT NULL
);
