/*
 * A reproduction outside hakari: sessions stored in chunks in Berkeley DB's SQL interface
 * (libdb_sql, the sqlite3 C API over Berkeley DB) by two threads, each with its own connection,
 * then every chunk read back and compared with what was written. The statements and table are
 * the session workload's chunked layout (src/workload/session/sql/chunked.sql): one transaction
 * per session, a row of at most 4000 bytes per chunk keyed by (id, subid). A transaction that
 * loses a lock conflict (SQLITE_BUSY or SQLITE_LOCKED) is rolled back and tried again from BEGIN.
 * Every session's bytes are distinct (its number in every 8-byte word), so a chunk that comes
 * back holding another session's bytes is named. Exits 1 when any chunk differs.
 *
 * Build: cc -O2 -pthread -o bdbsql_chunked bench/bdbsql_chunked.c -ldb_sql
 * Run:   bdbsql_chunked DIR [SESSIONS] [THREADS] [SESSION_BYTES]
 */
#include <dbsql.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 4000
static const char *path;
static int sessions = 200, threads = 2, bytes = 13792;

static void die(sqlite3 *db, const char *what) {
    fprintf(stderr, "%s: %s\n", what, db ? sqlite3_errmsg(db) : "?");
    exit(2);
}

static sqlite3 *open_db(void) {
    sqlite3 *db;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        NULL) != SQLITE_OK)
        die(db, "open");
    if (sqlite3_exec(db, "PRAGMA synchronous=FULL", NULL, NULL, NULL) != SQLITE_OK) die(db, "pragma");
    return db;
}

static int conflict(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }

/* Session n's bytes: n and the word's position in every 8-byte word. */
static void payload(int n, unsigned char *out) {
    for (int i = 0; i < bytes; i += 8) {
        uint64_t w = ((uint64_t)n << 32) | (uint32_t)i;
        memcpy(out + i, &w, bytes - i < 8 ? (size_t)(bytes - i) : 8);
    }
}

struct worker {
    int index;
    long retries;
};

static void *write_sessions(void *arg) {
    struct worker *w = arg;
    sqlite3 *db = open_db();
    sqlite3_stmt *insert;
    if (sqlite3_prepare_v2(db, "INSERT INTO hakari_session_chunks (id, subid, data, updated) VALUES (?, ?, ?, CURRENT_TIMESTAMP)",
                           -1, &insert, NULL) != SQLITE_OK)
        die(db, "prepare");
    unsigned char *data = malloc(bytes);
    char id[32];
    for (int n = w->index; n < sessions; n += threads) {
        payload(n, data);
        snprintf(id, sizeof id, "s%d", n);
        for (;;) {
            int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
            for (int sub = 0; rc == SQLITE_OK && sub * CHUNK < bytes; sub++) {
                int len = bytes - sub * CHUNK < CHUNK ? bytes - sub * CHUNK : CHUNK;
                sqlite3_bind_text(insert, 1, id, -1, SQLITE_TRANSIENT);
                sqlite3_bind_int(insert, 2, sub);
                sqlite3_bind_blob(insert, 3, data + sub * CHUNK, len, SQLITE_TRANSIENT);
                rc = sqlite3_step(insert);
                sqlite3_reset(insert);
                if (rc == SQLITE_DONE) rc = SQLITE_OK;
            }
            if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
            if (rc == SQLITE_OK) break;
            if (!conflict(rc)) die(db, "write");
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL); /* may have ended already */
            w->retries++;
        }
    }
    free(data);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR [SESSIONS] [THREADS] [SESSION_BYTES]\n", argv[0]);
        return 2;
    }
    static char file[4096];
    snprintf(file, sizeof file, "%s/chunked.db", argv[1]);
    path = file;
    if (argc > 2) sessions = atoi(argv[2]);
    if (argc > 3) threads = atoi(argv[3]);
    if (argc > 4) bytes = atoi(argv[4]);
    sqlite3 *db = open_db();
    if (sqlite3_exec(db, "CREATE TABLE hakari_session_chunks (id VARCHAR(72) NOT NULL, subid INTEGER NOT NULL, data BLOB, updated TIMESTAMP NULL, PRIMARY KEY (id, subid))",
                     NULL, NULL, NULL) != SQLITE_OK)
        die(db, "create");
    pthread_t tid[64];
    struct worker w[64];
    for (int t = 0; t < threads; t++) {
        w[t] = (struct worker){.index = t};
        pthread_create(&tid[t], NULL, write_sessions, &w[t]);
    }
    long retries = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        retries += w[t].retries;
    }
    sqlite3_stmt *select;
    if (sqlite3_prepare_v2(db, "SELECT subid, data FROM hakari_session_chunks WHERE id = ? ORDER BY subid", -1,
                           &select, NULL) != SQLITE_OK)
        die(db, "prepare select");
    unsigned char *want = malloc(bytes);
    char id[32];
    long wrong = 0, chunks = 0;
    for (int n = 0; n < sessions; n++) {
        payload(n, want);
        snprintf(id, sizeof id, "s%d", n);
        sqlite3_bind_text(select, 1, id, -1, SQLITE_TRANSIENT);
        while (sqlite3_step(select) == SQLITE_ROW) {
            int sub = sqlite3_column_int(select, 0);
            const unsigned char *got = sqlite3_column_blob(select, 1);
            int len = sqlite3_column_bytes(select, 1);
            int want_len = bytes - sub * CHUNK < CHUNK ? bytes - sub * CHUNK : CHUNK;
            chunks++;
            if (len != want_len || memcmp(got, want + sub * CHUNK, len) != 0) {
                uint64_t word = 0;
                memcpy(&word, got, len < 8 ? (size_t)len : 8);
                printf("s%d chunk %d: %d bytes differ from what was written; they begin like session %u at byte %u\n",
                       n, sub, len, (unsigned)(word >> 32), (unsigned)(word & 0xffffffff));
                wrong++;
            }
        }
        sqlite3_reset(select);
    }
    printf("sessions %d, threads %d, chunks read %ld, conflicts retried %ld, chunks that differ %ld\n",
           sessions, threads, chunks, retries, wrong);
    sqlite3_finalize(select);
    sqlite3_close(db);
    return wrong ? 1 : 0;
}
