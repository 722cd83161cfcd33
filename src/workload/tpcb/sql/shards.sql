-- The clients of a run split over several machines (--shard i/N). Shard 1 lists them once the
-- tables exist (loaded, unless every shard loads its own part); each then moves its own row on
-- through the stages (1 listed, 2 loaded, 3 done; -1 failed, which the others stop at);
-- shard 1 drops the tables once every one is done or failed.
-- [create]
DROP TABLE IF EXISTS hakari_tpcb_shards;
CREATE TABLE hakari_tpcb_shards (run VARCHAR(64) NOT NULL, shard INTEGER NOT NULL, stage INTEGER NOT NULL, PRIMARY KEY (run, shard));
-- [list]
INSERT INTO hakari_tpcb_shards (run, shard, stage) VALUES (?, ?, ?);
-- [count]
SELECT COUNT(*) FROM hakari_tpcb_shards WHERE run = ? AND stage >= ?;
-- [failed]
SELECT COUNT(*) FROM hakari_tpcb_shards WHERE run = ? AND stage < 0;
-- [mark]
UPDATE hakari_tpcb_shards SET stage = ? WHERE run = ? AND shard = ? AND stage >= 0;
-- [drop]
DROP TABLE IF EXISTS hakari_tpcb_shards;
