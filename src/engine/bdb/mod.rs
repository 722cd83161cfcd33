//! `bdb`: Berkeley DB 5.3 (Debian's libdb5.3) through the C shim beside this file.
//!
//! `none` is the Data Store (DB_INIT_MPOOL only: no transactions, locks or log); every other level
//! is the Transactional Data Store (txn + lock + log + mpool) with the commit flags of DESIGN.md
//! section 3. As in the papers: Btree, DB_PRIVATE environment, one DB handle per worker thread.

mod statistics;

use super::kv::{Conflict, KvEngine, KvOptions, KvSession, KvStore, VisitRecord};
use crate::durability::Durability;
use anyhow::{anyhow, bail, Context, Result};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::ptr;

#[repr(C)]
struct DbEnv {
    _opaque: [u8; 0],
}
#[repr(C)]
struct Db {
    _opaque: [u8; 0],
}
#[repr(C)]
struct DbTxn {
    _opaque: [u8; 0],
}

type Visit = extern "C" fn(*mut c_void, *const u8, u32, *const u8, u32);

extern "C" {
    fn hk_strerror(ret: c_int) -> *const c_char;
    fn hk_version(major: *mut c_int, minor: *mut c_int, patch: *mut c_int) -> *const c_char;
    fn hk_env_open(
        home: *const c_char,
        durability: c_int,
        cache_bytes: u64,
        log_buffer: u32,
        threads: c_int,
        out: *mut *mut DbEnv,
    ) -> c_int;
    fn hk_env_close(env: *mut DbEnv) -> c_int;
    fn hk_db_open(
        env: *mut DbEnv,
        file: *const c_char,
        page_size: u32,
        transactional: c_int,
        out: *mut *mut Db,
    ) -> c_int;
    fn hk_db_close(db: *mut Db, flush: c_int) -> c_int;
    fn hk_txn_begin(env: *mut DbEnv, out: *mut *mut DbTxn) -> c_int;
    fn hk_txn_commit(txn: *mut DbTxn) -> c_int;
    fn hk_txn_abort(txn: *mut DbTxn) -> c_int;
    fn hk_put(
        db: *mut Db,
        txn: *mut DbTxn,
        k: *const u8,
        klen: u32,
        v: *const u8,
        vlen: u32,
    ) -> c_int;
    fn hk_get(
        db: *mut Db,
        txn: *mut DbTxn,
        k: *const u8,
        klen: u32,
        buf: *mut u8,
        cap: u32,
        len: *mut u32,
    ) -> c_int;
    fn hk_del(db: *mut Db, txn: *mut DbTxn, k: *const u8, klen: u32) -> c_int;
    fn hk_scan_bulk(
        db: *mut Db,
        buf: *mut c_void,
        bulk_bytes: u32,
        visit: Visit,
        ctx: *mut c_void,
        count: *mut u64,
    ) -> c_int;
    fn hk_scan_from(
        db: *mut Db,
        txn: *mut DbTxn,
        start: *const u8,
        start_len: u32,
        limit: u64,
        visit: Visit,
        ctx: *mut c_void,
        count: *mut u64,
    ) -> c_int;
    fn hk_settings(env: *mut DbEnv, db: *mut Db, out: *mut c_char, cap: usize) -> c_int;
}

const HK_NOTFOUND: c_int = 1;
const HK_CONFLICT: c_int = 2;
const HK_BUFFER_SMALL: c_int = 3;

/// The file every worker's handle opens inside the environment.
const FILE: &CStr = c"kv.db";

/// Turns a shim return code into a Result; NOTFOUND is the caller's business.
fn check(ret: c_int, what: &str) -> Result<()> {
    match ret {
        0 => Ok(()),
        HK_CONFLICT => Err(Conflict(format!("Berkeley DB {what}: deadlock")).into()),
        _ => {
            // SAFETY: db_strerror returns a static string for any code.
            let msg = unsafe { CStr::from_ptr(hk_strerror(ret)) }.to_string_lossy();
            Err(anyhow!("Berkeley DB {what} failed: {msg} ({ret})"))
        }
    }
}

fn durability_code(level: Durability) -> c_int {
    match level {
        Durability::None => 0,
        Durability::Sync => 1,
        Durability::WriteNosync => 2,
        Durability::Nosync => 3,
        Durability::InMemory => 4,
    }
}

pub struct Bdb;

/// The linked libdb's version ("5.3.28"), shared with `bdb-sql`.
pub fn library_version() -> String {
    let (mut a, mut b, mut c) = (0, 0, 0);
    // SAFETY: db_version fills three ints and returns a static string.
    unsafe { hk_version(&mut a, &mut b, &mut c) };
    format!("{a}.{b}.{c}")
}

impl KvEngine for Bdb {
    fn version(&self) -> String {
        library_version()
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        Ok(match level {
            Durability::None => "Data Store: DB_INIT_MPOOL only (no txn, lock or log)",
            Durability::Sync => "TDS: txn+lock+log+mpool, commit flushes the log (default)",
            Durability::WriteNosync => {
                "TDS with DB_TXN_WRITE_NOSYNC (log written to the OS at commit)"
            }
            Durability::Nosync => "TDS with DB_TXN_NOSYNC (log left in the log buffer at commit)",
            Durability::InMemory => "TDS with DB_LOG_IN_MEMORY (log kept in memory only)",
        }
        .into())
    }
    fn max_threads(&self, level: Durability) -> Option<usize> {
        // The Data Store has no locking: one writer thread only.
        (level == Durability::None).then_some(1)
    }
    fn has_bulk_read(&self) -> bool {
        true
    }
    fn open(&self, options: &KvOptions) -> Result<Box<dyn KvStore>> {
        let home = CString::new(options.dir.as_os_str().as_bytes())?;
        let log_buffer = u32::try_from(options.log_buffer_bytes).context("log buffer over 4GB")?;
        let mut env = ptr::null_mut();
        // SAFETY: the shim creates the environment or leaves `env` null and returns an error.
        let ret = unsafe {
            hk_env_open(
                home.as_ptr(),
                durability_code(options.durability),
                options.cache_bytes,
                log_buffer,
                options.threads as c_int,
                &mut env,
            )
        };
        check(ret, "environment open")?;
        let mut store = BdbStore {
            env,
            main: ptr::null_mut(),
            transactional: options.durability != Durability::None,
            page_size: options.page_size,
            bulk_bytes: if options.bulk_buffer_bytes > 0 {
                options.bulk_buffer_bytes
            } else {
                4 << 20
            },
            value_size: options.value_size,
            statistics: None,
        };
        // One handle held for the store's life: it creates the file and reports settings.
        store.main = store.open_handle()?;
        if crate::measure::resources::enabled() {
            let source = statistics::Statistics(env);
            store.statistics = Some(crate::measure::resources::register(Box::new(source)));
        }
        Ok(Box::new(store))
    }
}

struct BdbStore {
    env: *mut DbEnv,
    main: *mut Db,
    transactional: bool,
    page_size: u32,
    bulk_bytes: usize,
    value_size: usize,
    /// The environment's counters in the step's readings; dropped before the environment closes.
    statistics: Option<crate::measure::resources::Registration>,
}

// SAFETY: the environment is opened DB_THREAD (free-threaded); handles are used by one thread.
unsafe impl Send for BdbStore {}
unsafe impl Sync for BdbStore {}

impl BdbStore {
    fn open_handle(&self) -> Result<*mut Db> {
        let mut db = ptr::null_mut();
        // SAFETY: env is open; the shim returns a handle or an error.
        let ret = unsafe {
            hk_db_open(
                self.env,
                FILE.as_ptr(),
                self.page_size,
                self.transactional as c_int,
                &mut db,
            )
        };
        check(ret, "database open")?;
        Ok(db)
    }
}

impl KvStore for BdbStore {
    fn session(&self) -> Result<Box<dyn KvSession + '_>> {
        Ok(Box::new(BdbSession {
            store: self,
            db: self.open_handle()?,
            txn: ptr::null_mut(),
            bulk: Vec::new(),
        }))
    }
    fn settings(&self) -> Vec<(String, String)> {
        let mut buf = vec![0u8; 1024];
        // SAFETY: the shim writes at most `cap` bytes, NUL-terminated.
        unsafe {
            hk_settings(
                self.env,
                self.main,
                buf.as_mut_ptr() as *mut c_char,
                buf.len(),
            )
        };
        let text = CStr::from_bytes_until_nul(&buf)
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut out: Vec<(String, String)> = text
            .split(';')
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        out.push(("access_method".into(), "btree".into()));
        out.push((
            "feature_set".into(),
            if self.transactional { "TDS" } else { "DS" }.into(),
        ));
        out
    }
    fn close(mut self: Box<Self>) -> Result<()> {
        self.shut()
    }
}

impl BdbStore {
    fn shut(&mut self) -> Result<()> {
        self.statistics = None;
        let mut first = Ok(());
        if !self.main.is_null() {
            // SAFETY: every session's handle was closed when it was dropped.
            first = check(unsafe { hk_db_close(self.main, 1) }, "database close");
            self.main = ptr::null_mut();
        }
        if !self.env.is_null() {
            let r = check(unsafe { hk_env_close(self.env) }, "environment close");
            self.env = ptr::null_mut();
            first = first.and(r);
        }
        first
    }
}

impl Drop for BdbStore {
    fn drop(&mut self) {
        let _ = self.shut();
    }
}

struct BdbSession<'s> {
    store: &'s BdbStore,
    db: *mut Db,
    txn: *mut DbTxn,
    /// The bulk buffer, u32-aligned as DB_MULTIPLE requires.
    bulk: Vec<u32>,
}

extern "C" fn visit_trampoline(ctx: *mut c_void, k: *const u8, klen: u32, v: *const u8, vlen: u32) {
    // SAFETY: ctx is the `&mut &mut dyn FnMut` passed below; k/v point at klen/vlen bytes of the
    // bulk buffer or the cursor's records, valid for this call.
    unsafe {
        let visit = &mut *(ctx as *mut &mut dyn FnMut(&[u8], &[u8]));
        visit(
            std::slice::from_raw_parts(k, klen as usize),
            std::slice::from_raw_parts(v, vlen as usize),
        );
    }
}

impl KvSession for BdbSession<'_> {
    fn begin(&mut self, _write: bool) -> Result<()> {
        if self.store.transactional {
            check(
                unsafe { hk_txn_begin(self.store.env, &mut self.txn) },
                "txn begin",
            )?;
        }
        Ok(())
    }
    fn commit(&mut self) -> Result<()> {
        if !self.txn.is_null() {
            let txn = std::mem::replace(&mut self.txn, ptr::null_mut());
            // The handle is freed by commit whatever it returns.
            check(unsafe { hk_txn_commit(txn) }, "commit")?;
        }
        Ok(())
    }
    fn abort(&mut self) {
        if !self.txn.is_null() {
            let txn = std::mem::replace(&mut self.txn, ptr::null_mut());
            unsafe { hk_txn_abort(txn) };
        }
    }
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        check(
            unsafe {
                hk_put(
                    self.db,
                    self.txn,
                    key.as_ptr(),
                    key.len() as u32,
                    value.as_ptr(),
                    value.len() as u32,
                )
            },
            "put",
        )
    }
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> Result<bool> {
        out.clear();
        out.reserve(self.store.value_size.max(16));
        loop {
            let mut len = 0u32;
            let ret = unsafe {
                hk_get(
                    self.db,
                    self.txn,
                    key.as_ptr(),
                    key.len() as u32,
                    out.as_mut_ptr(),
                    out.capacity() as u32,
                    &mut len,
                )
            };
            match ret {
                0 => {
                    // SAFETY: Berkeley DB wrote `len` bytes into the buffer.
                    unsafe { out.set_len(len as usize) };
                    return Ok(true);
                }
                HK_NOTFOUND => return Ok(false),
                HK_BUFFER_SMALL => out.reserve(len as usize),
                other => check(other, "get")?,
            }
        }
    }
    fn delete(&mut self, key: &[u8]) -> Result<bool> {
        match unsafe { hk_del(self.db, self.txn, key.as_ptr(), key.len() as u32) } {
            HK_NOTFOUND => Ok(false),
            ret => check(ret, "delete").map(|_| true),
        }
    }
    fn scan_from(&mut self, start: &[u8], count: u64, visit: &mut VisitRecord) -> Result<u64> {
        let mut read = 0u64;
        let mut visit_ref: &mut dyn FnMut(&[u8], &[u8]) = visit;
        let ret = unsafe {
            hk_scan_from(
                self.db,
                self.txn,
                start.as_ptr(),
                start.len() as u32,
                count,
                visit_trampoline,
                &mut visit_ref as *mut &mut dyn FnMut(&[u8], &[u8]) as *mut c_void,
                &mut read,
            )
        };
        check(ret, "range scan")?;
        Ok(read)
    }
    fn scan(&mut self, visit: &mut VisitRecord) -> Result<u64> {
        let bytes = self.store.bulk_bytes.next_multiple_of(1024);
        if self.bulk.len() * 4 < bytes {
            self.bulk = vec![0u32; bytes / 4];
        }
        let mut count = 0u64;
        let mut visit_ref: &mut dyn FnMut(&[u8], &[u8]) = visit;
        let ret = unsafe {
            hk_scan_bulk(
                self.db,
                self.bulk.as_mut_ptr() as *mut c_void,
                bytes as u32,
                visit_trampoline,
                &mut visit_ref as *mut &mut dyn FnMut(&[u8], &[u8]) as *mut c_void,
                &mut count,
            )
        };
        if ret == HK_BUFFER_SMALL {
            bail!("a record is larger than the {bytes}-byte bulk buffer (raise --bulk-buffer)");
        }
        check(ret, "bulk read")?;
        Ok(count)
    }
}

impl Drop for BdbSession<'_> {
    fn drop(&mut self) {
        self.abort();
        if !self.db.is_null() {
            unsafe { hk_db_close(self.db, 0) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(dir: &std::path::Path, level: Durability) -> KvOptions {
        KvOptions {
            threads: 2,
            cache_bytes: 8 << 20,
            page_size: 4096,
            bulk_buffer_bytes: 64 << 10,
            expected_records: 1000,
            ..KvOptions::at(dir, level)
        }
    }

    #[test]
    fn a_step_ending_writes_nothing_the_store_closing_writes_it_all() {
        let dir = tempfile::tempdir().unwrap();
        let store = Bdb.open(&options(dir.path(), Durability::None)).unwrap();
        let file = dir.path().join(FILE.to_str().unwrap());
        let on_disk = || std::fs::metadata(&file).map_or(0, |m| m.len());
        let before = on_disk();
        {
            let mut s = store.session().unwrap();
            s.begin(true).unwrap();
            for n in 0u64..20_000 {
                s.put(&n.to_be_bytes(), &[n as u8; 16]).unwrap();
            }
            s.commit().unwrap();
        }
        // The worker's handle is closed: its pages stay in the cache (a flush here would write
        // the whole database at the end of every step).
        assert_eq!(on_disk(), before);
        store.close().unwrap();
        assert!(on_disk() > before + 20_000 * 24, "{} bytes", on_disk());
    }

    #[test]
    fn put_get_delete_scan_at_every_level() {
        for level in Durability::ALL {
            let dir = tempfile::tempdir().unwrap();
            let store = Bdb.open(&options(dir.path(), level)).unwrap();
            {
                let mut s = store.session().unwrap();
                s.begin(true).unwrap();
                for n in (0u64..500).rev() {
                    s.put(&n.to_be_bytes(), &[n as u8; 16]).unwrap();
                }
                s.commit().unwrap();
                let mut out = Vec::new();
                s.begin(false).unwrap();
                assert!(s.get(&7u64.to_be_bytes(), &mut out).unwrap());
                assert_eq!(out, vec![7u8; 16]);
                assert!(!s.get(&9999u64.to_be_bytes(), &mut out).unwrap());
                s.commit().unwrap();
                s.begin(true).unwrap();
                assert!(s.delete(&3u64.to_be_bytes()).unwrap());
                assert!(!s.delete(&3u64.to_be_bytes()).unwrap());
                s.commit().unwrap();
                let mut keys = Vec::new();
                let n = s
                    .scan(&mut |k, v| {
                        assert_eq!(v.len(), 16);
                        keys.push(u64::from_be_bytes(k.try_into().unwrap()));
                    })
                    .unwrap();
                assert_eq!(n, 499, "{level}");
                assert!(keys.windows(2).all(|w| w[0] < w[1]), "key order at {level}");
                // A value larger than the caller's reserve is read whole.
                s.begin(true).unwrap();
                s.put(b"big-key!", &vec![9u8; 10_000]).unwrap();
                s.commit().unwrap();
                s.begin(false).unwrap();
                assert!(s.get(b"big-key!", &mut out).unwrap());
                assert_eq!(out.len(), 10_000);
                s.commit().unwrap();
            }
            let settings: std::collections::BTreeMap<_, _> = store.settings().into_iter().collect();
            assert_eq!(
                settings["feature_set"],
                if level == Durability::None {
                    "DS"
                } else {
                    "TDS"
                }
            );
            assert_eq!(settings["page_size"], "4096");
            assert_eq!(
                settings["txn_nosync"],
                if level == Durability::Nosync {
                    "1"
                } else {
                    "0"
                }
            );
            assert_eq!(
                settings["txn_write_nosync"],
                if level == Durability::WriteNosync {
                    "1"
                } else {
                    "0"
                }
            );
            assert_eq!(
                settings["log_in_memory"],
                if level == Durability::InMemory {
                    "1"
                } else {
                    "0"
                }
            );
            store.close().unwrap();
        }
    }

    #[test]
    fn aborted_transactions_leave_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = Bdb.open(&options(dir.path(), Durability::Sync)).unwrap();
        let mut s = store.session().unwrap();
        s.begin(true).unwrap();
        s.put(b"k0000001", b"v").unwrap();
        s.abort();
        s.begin(false).unwrap();
        assert!(!s.get(b"k0000001", &mut Vec::new()).unwrap());
        s.commit().unwrap();
    }

    #[test]
    fn the_data_store_serves_one_thread() {
        assert_eq!(Bdb.max_threads(Durability::None), Some(1));
        assert_eq!(Bdb.max_threads(Durability::Sync), None);
        assert!(
            crate::engine::Engine::Kv(crate::engine::Named::new("bdb", &Bdb))
                .check(Durability::None, 2)
                .is_err()
        );
    }
}
