/*
 * A reproduction outside hakari: the TPC-B transaction against Berkeley DB's SQL interface
 * (libdb_sql, the sqlite3 C API over Berkeley DB) by several threads, each with its own
 * connection, retrying a transaction that loses a lock conflict. Afterwards the sums of account,
 * teller and branch balances and of the history's deltas must all be equal; the program says
 * whether they are and exits 1 when they are not.
 *
 * The same statements hakari's tpcb workload runs (src/workload/tpcb/sql/transaction.sql), the
 * same conflict handling: on SQLITE_BUSY or SQLITE_LOCKED from any statement or the COMMIT, the
 * statement is reset, ROLLBACK is issued (its error ignored: the library may have ended the
 * transaction already) and the whole transaction is tried again from BEGIN.
 *
 * Build: cc -O2 -pthread -o bdbsql_tpcb bench/bdbsql_tpcb.c -ldb_sql
 * Run:   bdbsql_tpcb DIR [THREADS] [TRANSACTIONS_PER_THREAD] [ACCOUNTS] [SYNC: FULL|NORMAL|OFF]
 *                    [BRANCHES (10 tellers each)] [HISTORY: rowid|keyed]
 *
 * What it shows (libdb5.3-sql 5.3.28, Debian 12): `bdbsql_tpcb DIR 4 6000 100000 FULL 1000` (the
 * shape of hakari's bdb-11gr2 preset: 1,000 branches, so transactions seldom conflict) ends
 * INCONSISTENT in about half the runs: one or two of the 24,000 committed transactions have no
 * history row, while their account, teller and branch updates are there. With `keyed` the
 * history table gets an INTEGER PRIMARY KEY each transaction supplies (thread and number), so
 * the library allocates no rowid; every such run has been consistent. Rows inserted at once by
 * concurrent transactions into a table keyed by an allocated rowid are lost.
 */
#include <dbsql.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *path;
static const char *sync_mode = "FULL";
static int branches = 1, tellers = 10, accounts = 1000, per_thread = 2000;
/* `keyed`: the history row's key is given by the transaction, not allocated by the library. */
static int keyed = 0;

static void die(sqlite3 *db, const char *what) {
    fprintf(stderr, "%s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
    exit(2);
}

static sqlite3 *open_db(void) {
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        NULL) != SQLITE_OK)
        die(db, "open");
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA synchronous=%s", sync_mode);
    if (sqlite3_exec(db, pragma, NULL, NULL, NULL) != SQLITE_OK) die(db, "pragma");
    return db;
}

static int conflict(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }

struct worker {
    int index;
    long retries;
    long other_errors;
};

static const char *sql[5] = {
    "UPDATE accounts SET abalance = abalance + ? WHERE aid = ?",
    "SELECT abalance FROM accounts WHERE aid = ?",
    "UPDATE tellers SET tbalance = tbalance + ? WHERE tid = ?",
    "UPDATE branches SET bbalance = bbalance + ? WHERE bid = ?",
    "INSERT INTO history (tid, bid, aid, delta, mtime, filler) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, 'hakari')",
};
static const char *keyed_insert =
    "INSERT INTO history (tid, bid, aid, delta, mtime, filler, hid) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP, 'hakari', ?)";

/* Steps `s` to its end; returns SQLITE_DONE or the error, with the statement reset. */
static int run(sqlite3_stmt *s) {
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    }
    sqlite3_reset(s);
    return rc;
}

static void *work(void *arg) {
    struct worker *w = arg;
    sqlite3 *db = open_db();
    sqlite3_stmt *st[5];
    for (int i = 0; i < 5; i++) {
        const char *text = i == 4 && keyed ? keyed_insert : sql[i];
        if (sqlite3_prepare_v2(db, text, -1, &st[i], NULL) != SQLITE_OK) die(db, text);
    }
    unsigned seed = 1234u + (unsigned)w->index;
    for (int t = 0; t < per_thread; t++) {
        int tid = rand_r(&seed) % tellers + 1, bid = (tid - 1) / 10 + 1;
        int aid = rand_r(&seed) % accounts + 1;
        int delta = rand_r(&seed) % 1999999 - 999999;
        for (;;) {
            int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
            if (rc == SQLITE_OK) {
                sqlite3_bind_int(st[0], 1, delta), sqlite3_bind_int(st[0], 2, aid);
                sqlite3_bind_int(st[1], 1, aid);
                sqlite3_bind_int(st[2], 1, delta), sqlite3_bind_int(st[2], 2, tid);
                sqlite3_bind_int(st[3], 1, delta), sqlite3_bind_int(st[3], 2, bid);
                sqlite3_bind_int(st[4], 1, tid), sqlite3_bind_int(st[4], 2, bid);
                sqlite3_bind_int(st[4], 3, aid), sqlite3_bind_int(st[4], 4, delta);
                if (keyed) sqlite3_bind_int(st[4], 5, w->index * 10000000 + t + 1);
                for (int i = 0; i < 5 && rc == SQLITE_OK; i++) {
                    int r = run(st[i]);
                    if (r != SQLITE_DONE) rc = r;
                }
                if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
            }
            if (rc == SQLITE_OK) break;
            if (!conflict(rc)) {
                w->other_errors++;
                fprintf(stderr, "thread %d: error %d: %s\n", w->index, rc, sqlite3_errmsg(db));
            }
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            w->retries++;
        }
    }
    for (int i = 0; i < 5; i++) sqlite3_finalize(st[i]);
    sqlite3_close(db);
    return NULL;
}

static long long scalar(sqlite3 *db, const char *q) {
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, q, -1, &s, NULL) != SQLITE_OK) die(db, q);
    long long v = 0;
    if (sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [THREADS] [TRANSACTIONS] [ACCOUNTS] [FULL|NORMAL|OFF] [BRANCHES] [rowid|keyed]\n",
                argv[0]);
        return 2;
    }
    static char file[4096];
    snprintf(file, sizeof file, "%s/tpcb.db", argv[1]);
    path = file;
    int threads = argc > 2 ? atoi(argv[2]) : 4;
    if (argc > 3) per_thread = atoi(argv[3]);
    if (argc > 4) accounts = atoi(argv[4]);
    if (argc > 5) sync_mode = argv[5];
    if (argc > 6) branches = atoi(argv[6]);
    if (argc > 7) keyed = strcmp(argv[7], "keyed") == 0;
    tellers = 10 * branches;
    sqlite3 *db = open_db();
    const char *schema =
        "CREATE TABLE branches (bid INTEGER NOT NULL PRIMARY KEY, bbalance BIGINT NOT NULL, filler CHAR(88));"
        "CREATE TABLE tellers (tid INTEGER NOT NULL PRIMARY KEY, bid INTEGER NOT NULL, tbalance BIGINT NOT NULL, filler CHAR(84));"
        "CREATE TABLE accounts (aid INTEGER NOT NULL PRIMARY KEY, bid INTEGER NOT NULL, abalance BIGINT NOT NULL, filler CHAR(84));";
    const char *history = keyed
        ? "CREATE TABLE history (hid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, bid INTEGER NOT NULL, aid INTEGER NOT NULL, delta BIGINT NOT NULL, mtime TIMESTAMP NOT NULL, filler CHAR(22));"
        : "CREATE TABLE history (tid INTEGER NOT NULL, bid INTEGER NOT NULL, aid INTEGER NOT NULL, delta BIGINT NOT NULL, mtime TIMESTAMP NOT NULL, filler CHAR(22));";
    if (sqlite3_exec(db, schema, NULL, NULL, NULL) != SQLITE_OK) die(db, "schema");
    if (sqlite3_exec(db, history, NULL, NULL, NULL) != SQLITE_OK) die(db, "history");
    char q[256];
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    for (int b = 1; b <= branches; b++) {
        snprintf(q, sizeof q, "INSERT INTO branches VALUES (%d, 0, '')", b);
        sqlite3_exec(db, q, NULL, NULL, NULL);
    }
    for (int t = 1; t <= tellers; t++) {
        snprintf(q, sizeof q, "INSERT INTO tellers VALUES (%d, %d, 0, '')", t, (t - 1) / 10 + 1);
        sqlite3_exec(db, q, NULL, NULL, NULL);
    }
    for (int a = 1; a <= accounts; a++) {
        snprintf(q, sizeof q, "INSERT INTO accounts VALUES (%d, 1, 0, '')", a);
        sqlite3_exec(db, q, NULL, NULL, NULL);
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) die(db, "load");
    pthread_t th[256];
    struct worker w[256];
    if (threads > 256) threads = 256;
    for (int i = 0; i < threads; i++) {
        w[i] = (struct worker){.index = i};
        pthread_create(&th[i], NULL, work, &w[i]);
    }
    long retries = 0, errors = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        retries += w[i].retries;
        errors += w[i].other_errors;
    }
    long long a = scalar(db, "SELECT SUM(abalance) FROM accounts");
    long long t = scalar(db, "SELECT SUM(tbalance) FROM tellers");
    long long b = scalar(db, "SELECT SUM(bbalance) FROM branches");
    long long h = scalar(db, "SELECT SUM(delta) FROM history");
    long long n = scalar(db, "SELECT COUNT(*) FROM history");
    sqlite3_close(db);
    int ok = a == t && t == b && b == h && n == (long long)threads * per_thread;
    printf("threads %d, transactions %d each, history %s, retries %ld, other errors %ld\n", threads,
           per_thread, keyed ? "keyed" : "rowid", retries, errors);
    printf("accounts %lld tellers %lld branches %lld history %lld (%lld rows): %s\n", a, t, b, h, n,
           ok ? "consistent" : "INCONSISTENT");
    return ok ? 0 : 1;
}
