-- Load once, run many (--keep, --load-only, --run-only): one row per workload whose tables an
-- earlier run loaded and kept, with the parameters that made them (they must match a later run's
-- to be used), the state a run leaves behind for the next (tpch: the refresh sets used), and
-- when and with which seed they were made. A row is written only once its load has finished,
-- and deleted before a load starts: tables without one are never used as kept.
-- [create]
CREATE TABLE IF NOT EXISTS hakari_kept (workload VARCHAR(32) NOT NULL, parameters VARCHAR(1000) NOT NULL, state VARCHAR(1000) NOT NULL, seed {bigint} NOT NULL, loaded_at VARCHAR(32) NOT NULL);
-- [find]
SELECT parameters, state, seed, loaded_at FROM hakari_kept WHERE workload = ?;
-- [forget]
DELETE FROM hakari_kept WHERE workload = ?;
-- [remember]
INSERT INTO hakari_kept (workload, parameters, state, seed, loaded_at) VALUES (?, ?, ?, ?, ?);
-- [left]
SELECT COUNT(*) FROM hakari_kept;
-- [drop]
DROP TABLE hakari_kept;
