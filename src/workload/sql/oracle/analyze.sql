-- Oracle gathers optimizer statistics with ANALYZE too (DBMS_STATS is the newer way, but a
-- PL/SQL block is not one statement to a driver that splits at semicolons).
ANALYZE TABLE {table} COMPUTE STATISTICS
