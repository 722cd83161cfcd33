/*
 * pgbench's built-in "TPC-B (sort of)" transaction written directly against libpq, one thread
 * per client, each blocking in PQexecPrepared: the floor a thread-per-client program (hakari's
 * shape: one OS thread per client) can reach with PostgreSQL's own client library. It answers
 * one question for bench/pgbench_floor.sh: how much of hakari pgbench's gap to pgbench is the
 * client library, and how much is pgbench's shape (-j threads, each polling several
 * connections).
 *
 * Choices an expert makes: the seven statements prepared once per connection (BEGIN and END
 * too, as pgbench -M prepared does); parameters sent as text (as pgbench sends them) from a
 * stack buffer, no allocation per statement; results cleared at once; one random generator per
 * thread (splitmix64, seeded from the clock and the client number); the clock read once per
 * transaction.
 *
 * Build: cc -O2 -pthread -o libpq_tpcb libpq_tpcb.c -lpq
 * Run:   libpq_tpcb CONNINFO CLIENTS SECONDS SCALE
 * Prints "tps = N" (transactions per second over the run, connections made before the start).
 * Exits 1, naming the statement, when any statement fails.
 */
#include <libpq-fe.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *sql[7] = {
    "BEGIN",
    "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
    "SELECT abalance FROM pgbench_accounts WHERE aid = $1",
    "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2",
    "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2",
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) "
    "VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
    "END",
};

struct client {
    long scale;
    int id;
    long done;
    PGconn *conn;
};

/* Every client prepares (ready), then the clock starts and all go at once (go). */
static pthread_barrier_t ready, go;
static double end;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static uint64_t next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void run(PGconn *c, int k, int n, const char *const *values) {
    char name[8];
    snprintf(name, sizeof name, "P0_%d", k);
    PGresult *r = PQexecPrepared(c, name, n, values, NULL, NULL, 0);
    ExecStatusType s = PQresultStatus(r);
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
        fprintf(stderr, "libpq_tpcb: %s: %s", sql[k], PQerrorMessage(c));
        exit(1);
    }
    PQclear(r);
}

static void *client(void *arg) {
    struct client *me = arg;
    PGconn *c = me->conn;
    for (int k = 0; k < 7; k++) {
        char name[8];
        snprintf(name, sizeof name, "P0_%d", k);
        PGresult *r = PQprepare(c, name, sql[k], 0, NULL);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
            fprintf(stderr, "libpq_tpcb: prepare %s: %s", sql[k], PQerrorMessage(c));
            exit(1);
        }
        PQclear(r);
    }
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)(me->id + 1) * 0xD1B54A32D192ED03ULL);
    pthread_barrier_wait(&ready);
    pthread_barrier_wait(&go);
    char aid[24], bid[24], tid[24], delta[24];
    while (now() < end) {
        snprintf(aid, sizeof aid, "%ld", (long)(next(&seed) % (100000 * me->scale)) + 1);
        snprintf(bid, sizeof bid, "%ld", (long)(next(&seed) % me->scale) + 1);
        snprintf(tid, sizeof tid, "%ld", (long)(next(&seed) % (10 * me->scale)) + 1);
        snprintf(delta, sizeof delta, "%ld", (long)(next(&seed) % 10001) - 5000);
        run(c, 0, 0, NULL);
        run(c, 1, 2, (const char *[]){delta, aid});
        run(c, 2, 1, (const char *[]){aid});
        run(c, 3, 2, (const char *[]){delta, tid});
        run(c, 4, 2, (const char *[]){delta, bid});
        run(c, 5, 4, (const char *[]){tid, bid, aid, delta});
        run(c, 6, 0, NULL);
        me->done++;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: libpq_tpcb CONNINFO CLIENTS SECONDS SCALE\n");
        return 2;
    }
    int n = atoi(argv[2]);
    double secs = atof(argv[3]);
    long scale = atol(argv[4]);
    if (n < 1 || secs <= 0 || scale < 1) {
        fprintf(stderr, "libpq_tpcb: CLIENTS, SECONDS and SCALE must be above 0\n");
        return 2;
    }
    struct client *cs = calloc(n, sizeof *cs);
    pthread_t *ts = calloc(n, sizeof *ts);
    for (int i = 0; i < n; i++) {
        cs[i].conn = PQconnectdb(argv[1]);
        if (PQstatus(cs[i].conn) != CONNECTION_OK) {
            fprintf(stderr, "libpq_tpcb: %s", PQerrorMessage(cs[i].conn));
            return 1;
        }
    }
    pthread_barrier_init(&ready, NULL, n + 1);
    pthread_barrier_init(&go, NULL, n + 1);
    for (int i = 0; i < n; i++) {
        cs[i] = (struct client){scale, i, 0, cs[i].conn};
        pthread_create(&ts[i], NULL, client, &cs[i]);
    }
    pthread_barrier_wait(&ready);
    double start = now();
    end = start + secs;
    pthread_barrier_wait(&go);
    long total = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(ts[i], NULL);
        total += cs[i].done;
        PQfinish(cs[i].conn);
    }
    printf("tps = %.1f\n", total / (now() - start));
    return 0;
}
