-- The table a server's committer owns: one row per commit, numbered 1, 2, 3, ...
-- [create]
CREATE TABLE hakari_crash (n BIGINT PRIMARY KEY);
-- [insert]
INSERT INTO hakari_crash (n) VALUES (?);
-- [select]
SELECT n FROM hakari_crash;
