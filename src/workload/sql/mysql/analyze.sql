-- Planner statistics for a table after a bulk load.
ANALYZE TABLE {table}
