-- The TPC-B transaction profile, in order, and the atomic update test's single-record write.

-- [update_account]
UPDATE {p}accounts SET abalance = abalance + ? WHERE aid = ?;

-- [select_balance]
SELECT abalance FROM {p}accounts WHERE aid = ?;

-- [update_teller]
UPDATE {p}tellers SET tbalance = tbalance + ? WHERE tid = ?;

-- [update_branch]
UPDATE {p}branches SET bbalance = bbalance + ? WHERE bid = ?;

-- [insert_history]
INSERT INTO {p}history (tid, bid, aid, delta, mtime, filler) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, 'hakari');

-- [update_filler]
-- A new filler, so no engine can skip the write as a no-op.
UPDATE {p}accounts SET filler = ? WHERE aid = ?;
