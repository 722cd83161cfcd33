/*
 * The kv workload's fetch and insert steps written directly against Berkeley DB 5.3, as someone
 * who knows the library would write them for the fastest correct run of the same work — not a
 * copy of hakari's settings. bench/harness_overhead.sh runs it beside hakari to measure what the
 * harness costs.
 *
 * The work (what the bdb-11gr2 preset defines): 576,000 records of 64-byte keys and 64-byte
 * values in 57,600 batches of 10 sequential keys, one thread; load them in a random batch order
 * (not reported), then fetch every record (checking each value holds its number), update them,
 * delete them and insert them again, each step over a fresh random batch order; ops/s of each.
 * The key holds its number big-endian with zero padding, after it or before it (LAYOUT).
 *   ds:  a Data Store, no transactions.
 *   tds: a Transactional Data Store committing one transaction per batch with a synchronous
 *        commit (the paper's TDS SYNC); reads in a transaction per batch as well.
 *
 * Choices an expert makes for one thread: no DB_THREAD (no handle is shared, so no per-handle
 * mutexes); DB_PRIVATE (no shared-memory region files); the 512MB cache in one region so every
 * record stays in memory; DB_DBT_USERMEM reads into a stack buffer (no malloc per get); keys and
 * values built in place; a page size left to the library (it picks the file system's block).
 * In tds: no DB_RECOVER on a fresh environment, deadlock detection off (one thread cannot
 * deadlock), and the library's default log buffer.
 *
 * Build: cc -O2 -o bdb_native bdb_native.c -ldb-5.3
 * Run:   bdb_native HOME ds|tds number-last|number-first [RUNS] [BATCHES]
 * Prints one line per run: "run N fetch OPS update OPS delete OPS insert OPS".
 */
#include <db.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEY 64
#define VAL 64
#define BATCH 10

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put_be64(unsigned char *p, uint64_t n) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(n >> (56 - 8 * i));
}

static void die(int ret, const char *what) {
    fprintf(stderr, "%s: %s\n", what, db_strerror(ret));
    exit(1);
}

/* xorshift64*: a fast, good enough generator for shuffling batch order. */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_random(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static void shuffle(uint64_t *a, uint64_t n) {
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = next_random() % (i + 1);
        uint64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

enum op { PUT, UPDATE, GET, DEL };

struct run {
    DB_ENV *env;
    DB *db;
    int tds;
    int number_first;
};

static double step(struct run *r, const uint64_t *order, uint64_t batches, enum op op) {
    unsigned char key[KEY], val[VAL], out[VAL];
    DBT k, v;
    memset(key, 0, sizeof key);
    memset(&k, 0, sizeof k);
    memset(&v, 0, sizeof v);
    k.data = key;
    k.size = KEY;
    unsigned char *number = r->number_first ? key : key + KEY - 8;
    /* The filler marks the generation, so an update really changes the bytes. */
    memset(val + 8, op == UPDATE ? 1 : 0, VAL - 8);
    double start = now();
    for (uint64_t b = 0; b < batches; b++) {
        DB_TXN *txn = NULL;
        int ret;
        if (r->tds && (ret = r->env->txn_begin(r->env, NULL, &txn, 0)) != 0) die(ret, "txn_begin");
        for (uint64_t i = 0; i < BATCH; i++) {
            uint64_t n = order[b] * BATCH + i;
            put_be64(number, n);
            if (op == PUT || op == UPDATE) {
                put_be64(val, n);
                v.data = val;
                v.size = VAL;
                v.flags = 0;
                ret = r->db->put(r->db, txn, &k, &v, 0);
            } else if (op == GET) {
                v.data = out;
                v.ulen = VAL;
                v.flags = DB_DBT_USERMEM;
                ret = r->db->get(r->db, txn, &k, &v, 0);
                if (ret == 0 && memcmp(out, number, 8) != 0) die(-1, "fetch returned a wrong value");
            } else {
                ret = r->db->del(r->db, txn, &k, 0);
            }
            if (ret != 0) die(ret, op == GET ? "get" : op == DEL ? "del" : "put");
        }
        if (txn != NULL && (ret = txn->commit(txn, 0)) != 0) die(ret, "commit");
    }
    return batches * BATCH / (now() - start);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s HOME ds|tds number-last|number-first [RUNS] [BATCHES]\n", argv[0]);
        return 2;
    }
    const char *home = argv[1];
    struct run r = {0};
    r.tds = strcmp(argv[2], "tds") == 0;
    r.number_first = strcmp(argv[3], "number-first") == 0;
    int runs = argc > 4 ? atoi(argv[4]) : 5;
    uint64_t batches = argc > 5 ? strtoull(argv[5], NULL, 10) : 57600;
    uint64_t *order = malloc(batches * sizeof *order);
    for (int run = 0; run < runs; run++) {
        int ret;
        if ((ret = db_env_create(&r.env, 0)) != 0) die(ret, "db_env_create");
        r.env->set_cachesize(r.env, 0, 512u << 20, 1);
        u_int32_t flags = DB_CREATE | DB_INIT_MPOOL | DB_PRIVATE;
        if (r.tds) flags |= DB_INIT_TXN | DB_INIT_LOCK | DB_INIT_LOG;
        if ((ret = r.env->open(r.env, home, flags, 0)) != 0) die(ret, "env open");
        if ((ret = db_create(&r.db, r.env, 0)) != 0) die(ret, "db_create");
        char file[64];
        snprintf(file, sizeof file, "native-%d.db", run);
        u_int32_t db_flags = DB_CREATE | (r.tds ? DB_AUTO_COMMIT : 0);
        if ((ret = r.db->open(r.db, NULL, file, NULL, DB_BTREE, db_flags, 0644)) != 0)
            die(ret, "db open");
        for (uint64_t b = 0; b < batches; b++) order[b] = b;
        shuffle(order, batches);
        step(&r, order, batches, PUT); /* load, not reported */
        shuffle(order, batches);
        double fetch = step(&r, order, batches, GET);
        shuffle(order, batches);
        double update = step(&r, order, batches, UPDATE);
        shuffle(order, batches);
        double delete = step(&r, order, batches, DEL);
        shuffle(order, batches);
        double insert = step(&r, order, batches, PUT);
        printf("run %d fetch %.0f update %.0f delete %.0f insert %.0f\n", run + 1, fetch, update,
               delete, insert);
        fflush(stdout);
        r.db->close(r.db, 0);
        r.env->close(r.env, 0);
        /* Each run starts from an empty home, as hakari's runs do (DB_PRIVATE: no region files). */
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "rm -f '%s'/native-*.db '%s'/log.*", home, home);
        if (system(cmd) != 0) die(-1, "cleaning the home directory");
    }
    free(order);
    return 0;
}
