//! `sqlite`: the bundled SQLite, the embedded default. One engine, two faces: a key-value table
//! (`kv.rs`) and SQL (`sql.rs`), sharing the durability mapping below.

pub mod kv;
pub mod sql;

pub use kv::SqliteKv;
pub use sql::SqliteSql;

use super::kv::Conflict;
use crate::durability::Durability;
use rusqlite::ErrorCode;

pub fn mapping(level: Durability) -> std::result::Result<String, String> {
    match level {
        Durability::Sync => Ok("journal_mode=WAL, synchronous=FULL".into()),
        Durability::WriteNosync => {
            Ok("journal_mode=WAL, synchronous=NORMAL (no fsync at commit)".into())
        }
        Durability::Nosync => Err("SQLite has no log buffer of its own: every commit hands its log to the OS (that is write-nosync)".into()),
        Durability::InMemory => Ok("shared-cache in-memory database (file::memory:)".into()),
        Durability::None => Ok("journal_mode=OFF, synchronous=OFF".into()),
    }
}

/// The PRAGMAs that set `level` on a new connection.
pub fn pragmas(level: Durability) -> &'static str {
    match level {
        Durability::Sync => "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
        Durability::WriteNosync => "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        Durability::InMemory => "PRAGMA synchronous=OFF;",
        Durability::None => "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;",
        Durability::Nosync => unreachable!("refused by mapping()"),
    }
}

/// Busy and locked databases are lost conflicts: the caller retries the transaction.
pub fn classify(e: rusqlite::Error) -> anyhow::Error {
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
            Conflict(e.to_string()).into()
        }
        _ => e.into(),
    }
}

/// Where a store lives: a file in the run's directory, or a named shared in-memory database.
pub fn location(
    dir: &std::path::Path,
    file: &str,
    level: Durability,
) -> (String, rusqlite::OpenFlags) {
    use rusqlite::OpenFlags as F;
    let base = F::SQLITE_OPEN_READ_WRITE | F::SQLITE_OPEN_CREATE | F::SQLITE_OPEN_NO_MUTEX;
    if level == Durability::InMemory {
        // A name unique to this store, shared by its connections.
        let name = format!("hakari-{file}-{}", dir.display()).replace(['/', ' ', '.'], "_");
        (
            format!("file:{name}?mode=memory&cache=shared"),
            base | F::SQLITE_OPEN_URI,
        )
    } else {
        (dir.join(file).display().to_string(), base)
    }
}

/// The connection that holds a store open (an in-memory database lives as long as a connection
/// does), also read for the store's settings.
#[derive(Default)]
pub struct Keeper(Option<std::sync::Mutex<rusqlite::Connection>>);

impl Keeper {
    pub fn new(conn: rusqlite::Connection) -> Keeper {
        Keeper(Some(std::sync::Mutex::new(conn)))
    }

    /// The effective values of the PRAGMAs that matter, for the results. `foreign_keys` and
    /// `secure_delete` are where the bundled build's defaults differ from a stock one's
    /// (SQLITE_DEFAULT_FOREIGN_KEYS=1; Debian's libsqlite3 is built with SQLITE_SECURE_DELETE).
    pub fn settings(&self) -> Vec<(String, String)> {
        let Some(conn) = &self.0 else {
            return Vec::new();
        };
        let conn = conn.lock().unwrap();
        let mut out = Vec::new();
        for pragma in [
            "journal_mode",
            "synchronous",
            "page_size",
            "cache_size",
            "locking_mode",
            "foreign_keys",
            "secure_delete",
        ] {
            if let Ok(v) =
                conn.pragma_query_value(None, pragma, |r| r.get::<_, rusqlite::types::Value>(0))
            {
                let text = match v {
                    rusqlite::types::Value::Integer(i) => i.to_string(),
                    rusqlite::types::Value::Text(t) => t,
                    other => format!("{other:?}"),
                };
                out.push((pragma.to_string(), text));
            }
        }
        out
    }

    /// Closes the connection, reporting SQLite's error if it refuses.
    pub fn close(self) -> anyhow::Result<()> {
        use anyhow::Context;
        if let Some(k) = self.0 {
            k.into_inner()
                .unwrap()
                .close()
                .map_err(|(_, e)| e)
                .context("closing SQLite")?;
        }
        Ok(())
    }
}
