-- The clients of a run split over several machines (--shard i/N). Shard 1 lists them once the
-- tables exist (loaded, unless every shard loads its own part); each then moves its own row on
-- through the stages (1 listed, 2 loaded, 3 checked in, 4 done; -1 failed, which the others stop
-- at). Once all is loaded and every shard has checked in, shard 1 names the instant the first
-- steps start (start_ms, Unix milliseconds).
-- Shard 1 drops the tables once every one is done or failed.
-- [create]
DROP TABLE IF EXISTS {p}shards;
CREATE TABLE {p}shards (run VARCHAR(64) NOT NULL, shard INTEGER NOT NULL, stage INTEGER NOT NULL, start_ms BIGINT, PRIMARY KEY (run, shard));
-- [list]
INSERT INTO {p}shards (run, shard, stage) VALUES (?, ?, ?);
-- [count]
SELECT COUNT(*) FROM {p}shards WHERE run = ? AND stage >= ?;
-- [below]
SELECT shard FROM {p}shards WHERE run = ? AND stage >= 0 AND stage < ? ORDER BY shard;
-- [failed]
SELECT COUNT(*) FROM {p}shards WHERE run = ? AND stage < 0;
-- [go]
UPDATE {p}shards SET start_ms = ? WHERE run = ? AND shard = 1;
-- [start]
SELECT start_ms FROM {p}shards WHERE run = ? AND shard = 1 AND start_ms IS NOT NULL;
-- [mark]
UPDATE {p}shards SET stage = ? WHERE run = ? AND shard = ? AND stage >= 0;
-- [drop]
DROP TABLE IF EXISTS {p}shards;
