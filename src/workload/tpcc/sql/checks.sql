-- The consistency conditions of §3.3.2.1-12: each query returns the rows that break its
-- condition (none when it holds), with the figures that disagree.
-- [1]
SELECT w_id, w_ytd, d.total FROM {p}warehouse, (SELECT d_w_id, SUM(d_ytd) AS total FROM {p}district GROUP BY d_w_id) d WHERE d.d_w_id = w_id AND w_ytd <> d.total;
-- [2]
SELECT d_w_id, d_id, d_next_o_id - 1, o.highest, n.highest FROM {p}district, (SELECT o_w_id, o_d_id, MAX(o_id) AS highest FROM {p}orders GROUP BY o_w_id, o_d_id) o, (SELECT no_w_id, no_d_id, MAX(no_o_id) AS highest FROM {p}new_order GROUP BY no_w_id, no_d_id) n WHERE o.o_w_id = d_w_id AND o.o_d_id = d_id AND n.no_w_id = d_w_id AND n.no_d_id = d_id AND (d_next_o_id - 1 <> o.highest OR d_next_o_id - 1 <> n.highest);
-- [3]
SELECT no_w_id, no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1, COUNT(*) FROM {p}new_order GROUP BY no_w_id, no_d_id HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*);
-- [4]
SELECT o.o_w_id, o.o_d_id, o.line_count, l.line_count FROM (SELECT o_w_id, o_d_id, SUM(o_ol_cnt) AS line_count FROM {p}orders GROUP BY o_w_id, o_d_id) o, (SELECT ol_w_id, ol_d_id, COUNT(*) AS line_count FROM {p}order_line GROUP BY ol_w_id, ol_d_id) l WHERE l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND o.line_count <> l.line_count;
-- [5]
SELECT o_w_id, o_d_id, o_id, o_carrier_id, no_o_id FROM {p}orders LEFT JOIN {p}new_order ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id WHERE (o_carrier_id IS NULL AND no_o_id IS NULL) OR (o_carrier_id IS NOT NULL AND no_o_id IS NOT NULL);
-- [6]
SELECT o_w_id, o_d_id, o_id, o_ol_cnt, l.line_count FROM {p}orders, (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS line_count FROM {p}order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l WHERE l.ol_w_id = o_w_id AND l.ol_d_id = o_d_id AND l.ol_o_id = o_id AND o_ol_cnt <> l.line_count;
-- [7]
SELECT ol_w_id, ol_d_id, ol_o_id, ol_number, o_carrier_id FROM {p}order_line, {p}orders WHERE o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id AND ((ol_delivery_d IS NULL AND o_carrier_id IS NOT NULL) OR (ol_delivery_d IS NOT NULL AND o_carrier_id IS NULL));
-- [8]
SELECT w_id, w_ytd, h.total FROM {p}warehouse, (SELECT h_w_id, SUM(h_amount) AS total FROM {p}history GROUP BY h_w_id) h WHERE h.h_w_id = w_id AND w_ytd <> h.total;
-- [9]
SELECT d_w_id, d_id, d_ytd, h.total FROM {p}district, (SELECT h_w_id, h_d_id, SUM(h_amount) AS total FROM {p}history GROUP BY h_w_id, h_d_id) h WHERE h.h_w_id = d_w_id AND h.h_d_id = d_id AND d_ytd <> h.total;
-- [10]
SELECT c_w_id, c_d_id, c_id, c_balance, COALESCE(o.total, 0), COALESCE(h.total, 0) FROM {p}customer LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) AS total FROM {p}orders, {p}order_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id AND ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) o ON o.o_w_id = c_w_id AND o.o_d_id = c_d_id AND o.o_c_id = c_id LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) AS total FROM {p}history GROUP BY h_c_w_id, h_c_d_id, h_c_id) h ON h.h_c_w_id = c_w_id AND h.h_c_d_id = c_d_id AND h.h_c_id = c_id WHERE c_balance <> COALESCE(o.total, 0) - COALESCE(h.total, 0);
-- [11]
SELECT o.o_w_id, o.o_d_id, o.n, COALESCE(n.n, 0) FROM (SELECT o_w_id, o_d_id, COUNT(*) AS n FROM {p}orders GROUP BY o_w_id, o_d_id) o LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS n FROM {p}new_order GROUP BY no_w_id, no_d_id) n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id WHERE o.n - COALESCE(n.n, 0) <> 2100;
-- [12]
SELECT c_w_id, c_d_id, c_id, c_balance, c_ytd_payment, COALESCE(o.total, 0) FROM {p}customer LEFT JOIN (SELECT o_w_id, o_d_id, o_c_id, SUM(ol_amount) AS total FROM {p}orders, {p}order_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id AND ol_delivery_d IS NOT NULL GROUP BY o_w_id, o_d_id, o_c_id) o ON o.o_w_id = c_w_id AND o.o_d_id = c_d_id AND o.o_c_id = c_id WHERE c_balance + c_ytd_payment <> COALESCE(o.total, 0);
-- [replica]
SELECT (SELECT SUM(d_next_o_id) FROM {p}district), (SELECT SUM(w_ytd) FROM {p}warehouse), (SELECT SUM(c_balance) FROM {p}customer), (SELECT SUM(s_ytd) FROM {p}stock), (SELECT COUNT(*) FROM {p}orders), (SELECT COUNT(*) FROM {p}new_order), (SELECT COUNT(*) FROM {p}order_line), (SELECT COUNT(*) FROM {p}history);
