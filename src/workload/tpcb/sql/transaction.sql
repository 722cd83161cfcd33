-- The TPC-B transaction profile, in order; the last line is the atomic
-- update test's single-record write (a new filler, so no engine can skip it as a no-op).
UPDATE {p}accounts SET abalance = abalance + ? WHERE aid = ?;
SELECT abalance FROM {p}accounts WHERE aid = ?;
UPDATE {p}tellers SET tbalance = tbalance + ? WHERE tid = ?;
UPDATE {p}branches SET bbalance = bbalance + ? WHERE bid = ?;
INSERT INTO {p}history (tid, bid, aid, delta, mtime, filler) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, 'hakari');
UPDATE {p}accounts SET filler = ? WHERE aid = ?;
