/*
 * A small C shim over Berkeley DB 5.3 so that Rust never touches DB_ENV/DB/DBC structs, whose
 * methods are function pointers and whose bulk-read helpers are macros.
 *
 * Return codes: 0 ok, HK_NOTFOUND, HK_CONFLICT (deadlock / lock not granted: retry the
 * transaction), HK_BUFFER_SMALL (value larger than the caller's buffer; *len says how large),
 * otherwise Berkeley DB's own error code (negative or errno), for db_strerror.
 */
#include <db.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

#define HK_NOTFOUND 1
#define HK_CONFLICT 2
#define HK_BUFFER_SMALL 3

/* Durability codes, as the Rust side numbers them. */
enum { HK_NONE = 0, HK_SYNC = 1, HK_WRITE_NOSYNC = 2, HK_NOSYNC = 3, HK_IN_MEMORY = 4 };

static int hk_code(int ret) {
    switch (ret) {
    case 0: return 0;
    case DB_NOTFOUND: case DB_KEYEMPTY: return HK_NOTFOUND;
    case DB_LOCK_DEADLOCK: case DB_LOCK_NOTGRANTED: return HK_CONFLICT;
    case DB_BUFFER_SMALL: return HK_BUFFER_SMALL;
    default: return ret;
    }
}

const char *hk_strerror(int ret) { return db_strerror(ret); }

const char *hk_version(int *major, int *minor, int *patch) {
    return db_version(major, minor, patch);
}

/* Opens an environment in `home`. transactional=0 is the Data Store (DB_INIT_MPOOL only). */
int hk_env_open(const char *home, int durability, uint64_t cache_bytes, uint32_t log_buffer,
                int threads, DB_ENV **out) {
    DB_ENV *env;
    int ret = db_env_create(&env, 0);
    if (ret != 0) return ret;
    u_int32_t flags = DB_CREATE | DB_INIT_MPOOL | DB_PRIVATE;
    /* Free-threaded only when several workers share the environment at once: DB_THREAD makes
       every handle lock its own mutexes, which costs a single thread's fetch 16-40% here. */
    if (threads > 1) flags |= DB_THREAD;
    if (cache_bytes > 0) {
        ret = env->set_cachesize(env, (u_int32_t)(cache_bytes >> 30),
                                 (u_int32_t)(cache_bytes & ((1u << 30) - 1)), 1);
        if (ret != 0) goto fail;
    }
    if (durability != HK_NONE) {
        flags |= DB_INIT_TXN | DB_INIT_LOCK | DB_INIT_LOG | DB_RECOVER;
        if (durability == HK_IN_MEMORY) {
            /* The log lives in a buffer that must hold every active transaction's records. */
            if (log_buffer == 0) log_buffer = 64u << 20;
            ret = env->log_set_config(env, DB_LOG_IN_MEMORY, 1);
            if (ret != 0) goto fail;
        }
        if (log_buffer > 0 && (ret = env->set_lg_bsize(env, log_buffer)) != 0) goto fail;
        if (durability == HK_WRITE_NOSYNC &&
            (ret = env->set_flags(env, DB_TXN_WRITE_NOSYNC, 1)) != 0) goto fail;
        if (durability == HK_NOSYNC && (ret = env->set_flags(env, DB_TXN_NOSYNC, 1)) != 0)
            goto fail;
        if ((ret = env->set_lk_detect(env, DB_LOCK_DEFAULT)) != 0) goto fail;
        /* Room for many threads each holding a batch's worth of page locks. */
        u_int32_t lockers = 1000 + 100 * (u_int32_t)threads;
        env->set_lk_max_lockers(env, lockers);
        env->set_lk_max_locks(env, 10000 + 1000 * (u_int32_t)threads);
        env->set_lk_max_objects(env, 10000 + 1000 * (u_int32_t)threads);
        env->set_tx_max(env, 100 + 10 * (u_int32_t)threads);
    }
    ret = env->open(env, home, flags, 0);
    if (ret != 0) goto fail;
    *out = env;
    return 0;
fail:
    env->close(env, 0);
    return ret;
}

int hk_env_close(DB_ENV *env) { return env->close(env, 0); }

/* Opens (creating) the Btree `file` in `env`. Each worker opens its own handle and no handle
   is used by two threads at once, so none is opened DB_THREAD. */
int hk_db_open(DB_ENV *env, const char *file, uint32_t page_size, int transactional, DB **out) {
    DB *db;
    int ret = db_create(&db, env, 0);
    if (ret != 0) return ret;
    if (page_size > 0 && (ret = db->set_pagesize(db, page_size)) != 0) {
        db->close(db, 0);
        return ret;
    }
    u_int32_t flags = DB_CREATE;
    if (transactional) flags |= DB_AUTO_COMMIT;
    ret = db->open(db, NULL, file, NULL, DB_BTREE, flags, 0644);
    if (ret != 0) {
        db->close(db, 0);
        return hk_code(ret);
    }
    *out = db;
    return 0;
}

/* A worker's handle closes with DB_NOSYNC: closing a handle otherwise writes every dirty page of
   the file, so each step would end by writing the whole database (and leave the kernel writing
   it back during the next step). The store's own handle, closed last, flushes it once. */
int hk_db_close(DB *db, int flush) { return db->close(db, flush ? 0 : DB_NOSYNC); }

int hk_txn_begin(DB_ENV *env, DB_TXN **out) { return hk_code(env->txn_begin(env, NULL, out, 0)); }
int hk_txn_commit(DB_TXN *txn) { return hk_code(txn->commit(txn, 0)); }
int hk_txn_abort(DB_TXN *txn) { return hk_code(txn->abort(txn)); }

int hk_put(DB *db, DB_TXN *txn, const void *k, uint32_t klen, const void *v, uint32_t vlen) {
    DBT key, data;
    memset(&key, 0, sizeof key);
    memset(&data, 0, sizeof data);
    key.data = (void *)k;
    key.size = klen;
    data.data = (void *)v;
    data.size = vlen;
    return hk_code(db->put(db, txn, &key, &data, 0));
}

/* Reads into the caller's buffer; on HK_BUFFER_SMALL *len is the size needed. */
int hk_get(DB *db, DB_TXN *txn, const void *k, uint32_t klen, void *buf, uint32_t cap,
           uint32_t *len) {
    DBT key, data;
    memset(&key, 0, sizeof key);
    memset(&data, 0, sizeof data);
    key.data = (void *)k;
    key.size = klen;
    data.data = buf;
    data.ulen = cap;
    data.flags = DB_DBT_USERMEM;
    int ret = db->get(db, txn, &key, &data, 0);
    *len = data.size;
    return hk_code(ret);
}

int hk_del(DB *db, DB_TXN *txn, const void *k, uint32_t klen) {
    DBT key;
    memset(&key, 0, sizeof key);
    key.data = (void *)k;
    key.size = klen;
    return hk_code(db->del(db, txn, &key, 0));
}

typedef void (*hk_visit)(void *ctx, const void *k, uint32_t klen, const void *v, uint32_t vlen);

/* Reads every record in key order, `bulk_bytes` at a time (DB_MULTIPLE_KEY), into `buf`. */
int hk_scan_bulk(DB *db, void *buf, uint32_t bulk_bytes, hk_visit visit, void *ctx,
                 uint64_t *count) {
    DBC *cursor;
    DBT key, data;
    int ret = db->cursor(db, NULL, &cursor, 0);
    if (ret != 0) return hk_code(ret);
    memset(&key, 0, sizeof key);
    memset(&data, 0, sizeof data);
    data.data = buf;
    data.ulen = bulk_bytes;
    data.flags = DB_DBT_USERMEM;
    *count = 0;
    for (;;) {
        ret = cursor->get(cursor, &key, &data, DB_MULTIPLE_KEY | DB_NEXT);
        if (ret != 0) break;
        void *p;
        DB_MULTIPLE_INIT(p, &data);
        for (;;) {
            void *rk, *rv;
            u_int32_t rklen, rvlen;
            DB_MULTIPLE_KEY_NEXT(p, &data, rk, rklen, rv, rvlen);
            if (p == NULL) break;
            visit(ctx, rk, rklen, rv, rvlen);
            (*count)++;
        }
    }
    cursor->close(cursor);
    return ret == DB_NOTFOUND ? 0 : hk_code(ret);
}

/* Reads up to `limit` records in key order from the first key at or after `start`, inside
 * `txn` when there is one. Key and data are reallocated by Berkeley DB as records grow. */
int hk_scan_from(DB *db, DB_TXN *txn, const void *start, uint32_t start_len, uint64_t limit,
                 hk_visit visit, void *ctx, uint64_t *count) {
    DBC *cursor;
    DBT key, data;
    int ret = db->cursor(db, txn, &cursor, 0);
    if (ret != 0) return hk_code(ret);
    memset(&key, 0, sizeof key);
    memset(&data, 0, sizeof data);
    key.data = malloc(start_len > 0 ? start_len : 1);
    if (key.data == NULL) {
        cursor->close(cursor);
        return hk_code(ENOMEM);
    }
    memcpy(key.data, start, start_len);
    key.size = start_len;
    key.flags = DB_DBT_REALLOC;
    data.flags = DB_DBT_REALLOC;
    *count = 0;
    u_int32_t flag = DB_SET_RANGE;
    while (*count < limit) {
        ret = cursor->get(cursor, &key, &data, flag);
        if (ret != 0) break;
        visit(ctx, key.data, key.size, data.data, data.size);
        (*count)++;
        flag = DB_NEXT;
    }
    free(key.data);
    free(data.data);
    cursor->close(cursor);
    return ret == DB_NOTFOUND ? 0 : hk_code(ret);
}

/* The effective settings, written as "name=value;" pairs into `out`. */
int hk_settings(DB_ENV *env, DB *db, char *out, size_t cap) {
    u_int32_t gbytes = 0, bytes = 0, lg_bsize = 0, env_flags = 0, page = 0, inmem = 0;
    int ncache = 0;
    u_int32_t open_flags = 0;
    env->get_open_flags(env, &open_flags);
    env->get_cachesize(env, &gbytes, &bytes, &ncache);
    env->get_flags(env, &env_flags);
    if (db != NULL) db->get_pagesize(db, &page);
    /* The log getters complain on stderr in a Data Store, which has no log. */
    if (open_flags & DB_INIT_LOG) {
        int onoff = 0;
        env->get_lg_bsize(env, &lg_bsize);
        if (env->log_get_config(env, DB_LOG_IN_MEMORY, &onoff) == 0) inmem = (u_int32_t)onoff;
    }
    return snprintf(out, cap,
                    "cache_bytes=%llu;page_size=%u;log_buffer_bytes=%u;log_in_memory=%u;"
                    "txn_nosync=%u;txn_write_nosync=%u;init_txn=%u;init_lock=%u;init_log=%u;"
                    "private=%u",
                    (unsigned long long)gbytes * (1ull << 30) + bytes, page, lg_bsize, inmem,
                    (env_flags & DB_TXN_NOSYNC) != 0, (env_flags & DB_TXN_WRITE_NOSYNC) != 0,
                    (open_flags & DB_INIT_TXN) != 0, (open_flags & DB_INIT_LOCK) != 0,
                    (open_flags & DB_INIT_LOG) != 0, (open_flags & DB_PRIVATE) != 0);
}

/* The environment's own counters for a step's resource readings: bytes and writes to the log,
   its syncs, and the cache's hits, misses and pages written out. A Data Store has no log: its
   log figures are left at UINT64_MAX, which the caller skips.

   Called from hakari's collecting thread while a worker may be inside the library. With several
   workers the environment is DB_THREAD; with one it is private and unthreaded, so Berkeley DB
   allocates no region mutexes and these reads race the worker's increments. The stat calls
   used here only copy integer counters out of the regions (no list is walked: txn_stat, which
   walks the active transactions, is not called), so the worst a race gives is a count one
   operation old. */
int hk_stats(DB_ENV *env, uint64_t out[6]) {
    u_int32_t open_flags = 0;
    int ret;
    for (int i = 0; i < 6; i++) out[i] = UINT64_MAX;
    env->get_open_flags(env, &open_flags);
    if (open_flags & DB_INIT_LOG) {
        DB_LOG_STAT *log = NULL;
        if ((ret = env->log_stat(env, &log, 0)) != 0) return ret;
        out[0] = (uint64_t)log->st_w_mbytes * (1u << 20) + log->st_w_bytes;
        out[1] = log->st_wcount;
        out[2] = log->st_scount;
        free(log);
    }
    DB_MPOOL_STAT *pool = NULL;
    if ((ret = env->memp_stat(env, &pool, NULL, 0)) != 0) return ret;
    out[3] = pool->st_cache_hit;
    out[4] = pool->st_cache_miss;
    out[5] = pool->st_page_out;
    free(pool);
    return 0;
}
