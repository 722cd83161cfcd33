-- The clients of a run split over several machines (--shard i/N). Shard 1 lists them once the
-- tables are loaded; the others start only when their run is listed; each marks itself done;
-- shard 1 drops the tables once every one is.
-- [create]
DROP TABLE IF EXISTS hakari_tpcb_shards;
CREATE TABLE hakari_tpcb_shards (run VARCHAR(64) NOT NULL, shard INTEGER NOT NULL, state VARCHAR(16) NOT NULL, PRIMARY KEY (run, shard));
-- [list]
INSERT INTO hakari_tpcb_shards (run, shard, state) VALUES (?, ?, ?);
-- [count]
SELECT COUNT(*) FROM hakari_tpcb_shards WHERE run = ? AND state = ?;
-- [mark]
UPDATE hakari_tpcb_shards SET state = ? WHERE run = ? AND shard = ?;
-- [drop]
DROP TABLE IF EXISTS hakari_tpcb_shards;
