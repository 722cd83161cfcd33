-- PostgreSQL also vacuums, as pgbench does after its load, so the first updates do not pay for it.
VACUUM ANALYZE {table}
