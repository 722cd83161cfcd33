-- The five transactions of §2.4-2.8, one statement per named section. {for_update} is
-- " FOR UPDATE" where the engine locks rows it reads (SQLite and Berkeley DB SQL take the write
-- lock at BEGIN IMMEDIATE; DuckDB is optimistic and retries). Money goes in as exact text
-- cast to the column's type ({amount}: a decimal, or integer cents).
--
-- New-Order (§2.4.2)
-- [warehouse_tax]
SELECT w_tax FROM {p}warehouse WHERE w_id = ?;
-- [district_next]
SELECT d_tax, d_next_o_id FROM {p}district WHERE d_w_id = ? AND d_id = ?{for_update};
-- [district_advance]
UPDATE {p}district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?;
-- [customer_discount]
SELECT c_discount, c_last, c_credit FROM {p}customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
-- [insert_order]
INSERT INTO {p}orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, NULL, ?, ?);
-- [insert_new_order]
INSERT INTO {p}new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?);
-- [item]
SELECT i_price, i_name, i_data FROM {p}item WHERE i_id = ?;
-- [stock]
SELECT s_quantity, s_dist_{district}, s_data FROM {p}stock WHERE s_w_id = ? AND s_i_id = ?{for_update};
-- [stock_update]
UPDATE {p}stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_w_id = ? AND s_i_id = ?;
-- [insert_order_line]
INSERT INTO {p}order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, CAST(? AS {amount}), ?);
--
-- Payment (§2.5.2)
-- [warehouse_pay]
UPDATE {p}warehouse SET w_ytd = w_ytd + CAST(? AS {amount}) WHERE w_id = ?;
-- [warehouse_name]
SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM {p}warehouse WHERE w_id = ?;
-- [district_pay]
UPDATE {p}district SET d_ytd = d_ytd + CAST(? AS {amount}) WHERE d_w_id = ? AND d_id = ?;
-- [district_name]
SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM {p}district WHERE d_w_id = ? AND d_id = ?;
-- [customers_by_name]
SELECT c_id FROM {p}customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first;
-- [customer_pay]
SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance FROM {p}customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?{for_update};
-- [customer_data]
SELECT c_data FROM {p}customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?{for_update};
-- [customer_paid]
UPDATE {p}customer SET c_balance = c_balance - CAST(? AS {amount}), c_ytd_payment = c_ytd_payment + CAST(? AS {amount}), c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
-- [customer_paid_data]
UPDATE {p}customer SET c_balance = c_balance - CAST(? AS {amount}), c_ytd_payment = c_ytd_payment + CAST(? AS {amount}), c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
-- [insert_history]
INSERT INTO {p}history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, CURRENT_TIMESTAMP, CAST(? AS {amount}), ?);
--
-- Order-Status (§2.6.2), read-only
-- [customer_status]
SELECT c_balance, c_first, c_middle, c_last FROM {p}customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
-- [last_order]
SELECT o_id, o_carrier_id, o_entry_d FROM {p}orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? AND o_id = (SELECT MAX(o_id) FROM {p}orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?);
-- [order_lines]
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM {p}order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?;
--
-- Delivery (§2.7.4), all ten districts in one transaction
-- [oldest_new_order]
SELECT MIN(no_o_id) FROM {p}new_order WHERE no_w_id = ? AND no_d_id = ?;
-- [delete_new_order]
DELETE FROM {p}new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?;
-- [order_customer]
SELECT o_c_id FROM {p}orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?;
-- [order_carrier]
UPDATE {p}orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?;
-- [lines_delivered]
UPDATE {p}order_line SET ol_delivery_d = CURRENT_TIMESTAMP WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?;
-- [lines_amount]
SELECT SUM(ol_amount) FROM {p}order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?;
-- [customer_delivered]
UPDATE {p}customer SET c_balance = c_balance + CAST(? AS {ytd}), c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?;
--
-- Stock-Level (§2.8.2)
-- [district_next_order]
SELECT d_next_o_id FROM {p}district WHERE d_w_id = ? AND d_id = ?;
-- [low_stock]
SELECT COUNT(DISTINCT s_i_id) FROM {p}order_line, {p}stock WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?;
