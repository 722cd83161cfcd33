/*
 * A minimal C program doing what hakari's kv preset bdb-11gr2 does on a Berkeley DB Data Store:
 * 64-byte keys (56 zero bytes + big-endian record number), 64-byte values (the number
 * big-endian, then filler), 512MB cache, DB_PRIVATE; load 576,000 records as 57,600 batches of
 * 10 sequential keys in a random batch order; then a timed fetch step and, after deleting every
 * record, a timed insert step, each over a fresh random batch order. Prints ops/s per step and run.
 *
 * Used by bench/harness_overhead.sh to measure hakari's own cost against the bare library.
 * Build: cc -O2 -o bdb_native bdb_native.c -ldb-5.3
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

static void encode(uint64_t n, unsigned char *buf, size_t size, unsigned char fill, int is_key) {
    if (is_key) {
        memset(buf, 0, size - 8);
        for (int i = 0; i < 8; i++) buf[size - 8 + i] = (unsigned char)(n >> (56 - 8 * i));
    } else {
        for (int i = 0; i < 8; i++) buf[i] = (unsigned char)(n >> (56 - 8 * i));
        memset(buf + 8, fill, size - 8);
    }
}

static void shuffle(uint64_t *a, uint64_t n, unsigned *seed) {
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = (uint64_t)rand_r(seed) % (i + 1);
        uint64_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

static void die(int ret, const char *what) {
    fprintf(stderr, "%s: %s\n", what, db_strerror(ret));
    exit(1);
}

enum op { PUT, GET, DEL };

static double step(DB *db, uint64_t *order, uint64_t batches, enum op op) {
    unsigned char key[KEY], val[VAL], out[VAL];
    DBT k, v;
    memset(&k, 0, sizeof k);
    memset(&v, 0, sizeof v);
    k.data = key;
    k.size = KEY;
    double start = now();
    for (uint64_t b = 0; b < batches; b++) {
        for (uint64_t i = 0; i < BATCH; i++) {
            uint64_t n = order[b] * BATCH + i;
            encode(n, key, KEY, 0, 1);
            int ret;
            if (op == PUT) {
                encode(n, val, VAL, 0, 0);
                v.data = val;
                v.size = VAL;
                v.flags = 0;
                ret = db->put(db, NULL, &k, &v, 0);
            } else if (op == GET) {
                v.data = out;
                v.ulen = VAL;
                v.flags = DB_DBT_USERMEM;
                ret = db->get(db, NULL, &k, &v, 0);
                if (ret == 0 && memcmp(out, key + KEY - 8, 8) != 0) die(-1, "wrong value");
            } else {
                ret = db->del(db, NULL, &k, 0);
            }
            if (ret != 0) die(ret, "operation");
        }
    }
    return batches * BATCH / (now() - start);
}

int main(int argc, char **argv) {
    const char *home = argc > 1 ? argv[1] : ".";
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    uint64_t batches = argc > 3 ? strtoull(argv[3], NULL, 10) : 57600;
    uint64_t *order = malloc(batches * sizeof *order);
    unsigned seed = 42;
    for (int run = 0; run < runs; run++) {
        DB_ENV *env;
        DB *db;
        int ret;
        if ((ret = db_env_create(&env, 0)) != 0) die(ret, "db_env_create");
        env->set_cachesize(env, 0, 512u << 20, 1);
        if ((ret = env->open(env, home, DB_CREATE | DB_INIT_MPOOL | DB_PRIVATE | DB_THREAD, 0)) != 0)
            die(ret, "env open");
        if ((ret = db_create(&db, env, 0)) != 0) die(ret, "db_create");
        char file[64];
        snprintf(file, sizeof file, "native-%d.db", run);
        if ((ret = db->open(db, NULL, file, NULL, DB_BTREE, DB_CREATE | DB_THREAD, 0644)) != 0)
            die(ret, "db open");
        for (uint64_t b = 0; b < batches; b++) order[b] = b;
        shuffle(order, batches, &seed);
        step(db, order, batches, PUT); /* load, not reported */
        shuffle(order, batches, &seed);
        double fetch = step(db, order, batches, GET);
        shuffle(order, batches, &seed);
        step(db, order, batches, DEL);
        shuffle(order, batches, &seed);
        double insert = step(db, order, batches, PUT);
        printf("run %d fetch %.0f insert %.0f\n", run + 1, fetch, insert);
        fflush(stdout);
        db->close(db, 0);
        env->dbremove(env, NULL, file, NULL, 0);
        env->close(env, 0);
    }
    free(order);
    return 0;
}
