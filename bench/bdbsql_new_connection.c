/*
 * A reproduction outside hakari: Berkeley DB's SQL interface (libdb_sql, the sqlite3 C API over
 * Berkeley DB) refuses new connections after a connection that was open before a table was
 * created (by another connection) reads that table, once the other connections have closed.
 *
 *   1. connections K and A open the database (no tables yet) and each runs a statement;
 *   2. connection B creates table t, inserts a row, and closes;
 *   3. connection C opens, runs a statement, and closes: fine;
 *   4. A reads t: fine, the row is there;
 *   5. connection D opens: its first statement fails with "SQL logic error or missing
 *      database", and so does every later connection's.
 *
 * The same program built against SQLite itself (`#include <sqlite3.h>`, `-lsqlite3`) opens D.
 * hakari's tpcc held a connection from before its tables were made and read them with it (the
 * checks right after the load); its terminals then could not connect. tpcc now opens the
 * connections it reads with after the tables exist.
 *
 * Build: cc -O2 -o bdbsql_new_connection bench/bdbsql_new_connection.c -ldb_sql
 * Run:   bdbsql_new_connection DIR      (an empty directory; exits 1 when step 5 fails)
 *
 * What it shows (libdb5.3-sql 5.3.28, Debian 12): step 5 fails on every run; with SQLite
 * 3.40.1 (Debian 12's libsqlite3) it passes.
 */
#include <dbsql.h>
#include <stdio.h>
#include <stdlib.h>

static sqlite3 *open_db(const char *path) {
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
        fprintf(stderr, "open: %s\n", sqlite3_errmsg(db));
        exit(2);
    }
    return db;
}

/* Runs `sql` as a prepared statement stepped to its end, as hakari's engine does; returns its
 * result code, printing the error when it fails. */
static int run(sqlite3 *db, const char *who, const char *sql) {
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
    if (rc == SQLITE_OK) {
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        }
        if (rc == SQLITE_DONE) {
            rc = SQLITE_OK;
        }
    }
    printf("%s: %s -> %s\n", who, sql, rc == SQLITE_OK ? "ok" : sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/repro.db", argv[1]);
    sqlite3 *keeper = open_db(path);
    run(keeper, "K", "PRAGMA synchronous=FULL");
    sqlite3 *a = open_db(path);
    run(a, "A", "PRAGMA synchronous=FULL");
    sqlite3 *b = open_db(path);
    run(b, "B", "CREATE TABLE t (x INTEGER, y VARCHAR(10))");
    run(b, "B", "INSERT INTO t VALUES (1, 'a')");
    sqlite3_close(b);
    sqlite3 *c = open_db(path);
    run(c, "C", "PRAGMA synchronous=FULL");
    sqlite3_close(c);
    run(a, "A", "SELECT x FROM t");
    sqlite3 *d = open_db(path);
    int rc = run(d, "D", "PRAGMA synchronous=FULL");
    printf(rc == SQLITE_OK ? "D opened: no defect\n" : "D could not run a statement: the defect\n");
    sqlite3_close(d);
    sqlite3_close(a);
    return rc == SQLITE_OK ? 0 : 1;
}
