-- Consistency: every table's balances must add up to the history's deltas.
SELECT (SELECT COALESCE(SUM(abalance), 0) FROM {p}accounts), (SELECT COALESCE(SUM(tbalance), 0) FROM {p}tellers), (SELECT COALESCE(SUM(bbalance), 0) FROM {p}branches), (SELECT COALESCE(SUM(delta), 0) FROM {p}history), (SELECT COUNT(*) FROM {p}history);
