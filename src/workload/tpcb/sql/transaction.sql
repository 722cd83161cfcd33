-- The TPC-B transaction profile, one statement per line, in order.
UPDATE {p}accounts SET abalance = abalance + ? WHERE aid = ?
SELECT abalance FROM {p}accounts WHERE aid = ?
UPDATE {p}tellers SET tbalance = tbalance + ? WHERE tid = ?
UPDATE {p}branches SET bbalance = bbalance + ? WHERE bid = ?
INSERT INTO {p}history (tid, bid, aid, delta, mtime, filler) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, 'hakari')
