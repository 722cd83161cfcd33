//! What hakari knows of each DBMS it may reach through ODBC: the dialect its SQL takes, how to
//! list the tables of the database a connection works in (to claim it safely), what a session
//! may set for each durability level, and the server settings worth recording. PostgreSQL,
//! MariaDB/MySQL and SQLite are tested here through Debian's drivers; Oracle and Actian Zen
//! (Pervasive PSQL) are written from their documentation and not tested.

use crate::durability::Durability;
use crate::engine::sql::Dialect;

/// A DBMS as its driver names it (`SQL_DBMS_NAME`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dbms {
    Postgres,
    Mysql,
    Sqlite,
    Oracle,
    Zen,
    /// Any other: standard SQL, and only what can be checked without knowing it.
    Other,
}

/// Whether hakari has run its tests through this DBMS's driver.
pub fn tested(dbms: Dbms) -> bool {
    matches!(dbms, Dbms::Postgres | Dbms::Mysql | Dbms::Sqlite)
}

impl Dbms {
    pub const ALL: [Dbms; 6] = [
        Dbms::Postgres,
        Dbms::Mysql,
        Dbms::Sqlite,
        Dbms::Oracle,
        Dbms::Zen,
        Dbms::Other,
    ];

    /// How tables name it.
    pub fn label(self) -> &'static str {
        match self {
            Dbms::Postgres => "PostgreSQL",
            Dbms::Mysql => "MariaDB/MySQL",
            Dbms::Sqlite => "SQLite",
            Dbms::Oracle => "Oracle",
            Dbms::Zen => "Actian Zen",
            Dbms::Other => "any other",
        }
    }

    /// From the name the driver reports: "PostgreSQL", "MariaDB", "MySQL", "SQLite",
    /// "Oracle", "Pervasive.SQL"/"Actian Zen"/"Zen", anything else.
    pub fn from_reported(name: &str) -> Dbms {
        let n = name.to_ascii_lowercase();
        if n.contains("postgres") {
            Dbms::Postgres
        } else if n.contains("mariadb") || n.contains("mysql") {
            Dbms::Mysql
        } else if n.contains("sqlite") {
            Dbms::Sqlite
        } else if n.contains("oracle") {
            Dbms::Oracle
        } else if n.contains("pervasive") || n.contains("zen") || n.contains("btrieve") {
            Dbms::Zen
        } else {
            Dbms::Other
        }
    }

    /// Whether it is a server, which takes load streams at once (SQLite is a library behind its
    /// driver; of a DBMS hakari does not know it assumes nothing).
    pub fn is_server(self) -> bool {
        matches!(
            self,
            Dbms::Postgres | Dbms::Mysql | Dbms::Oracle | Dbms::Zen
        )
    }

    /// The dialect its SQL takes.
    pub fn dialect(self) -> Dialect {
        match self {
            Dbms::Postgres => Dialect::Postgres,
            Dbms::Mysql => Dialect::Mysql,
            Dbms::Sqlite => Dialect::Sqlite,
            Dbms::Oracle => Dialect::Oracle,
            Dbms::Zen => Dialect::Zen,
            Dbms::Other => Dialect::Standard,
        }
    }

    /// A query listing the tables of the database (or schema) a connection works in.
    pub fn tables_query(self) -> &'static str {
        match self {
            Dbms::Postgres => "SELECT CAST(table_name AS TEXT) FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1",
            Dbms::Mysql => "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1",
            // sqlite_stat1 and the like are SQLite's own (ANALYZE makes one).
            Dbms::Sqlite => "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!' ORDER BY 1",
            Dbms::Oracle => "SELECT table_name FROM user_tables ORDER BY 1",
            // Zen's dictionary: X$File lists every table; flag 16 marks its own system tables.
            Dbms::Zen => "SELECT Xf$Name FROM X$File WHERE Xf$Flags & 16 = 0 ORDER BY 1",
            Dbms::Other => "SELECT table_name FROM information_schema.tables WHERE table_schema = CURRENT_SCHEMA ORDER BY 1",
        }
    }

    /// Connection attributes hakari adds for this DBMS's usual driver when the connection
    /// string does not set them: (key, value). psqlODBC wraps every statement in a savepoint
    /// unless told to roll back whole transactions (`Protocol=7.4-1`); hakari retries whole
    /// transactions anyway, so the savepoints would only add two round trips per statement.
    pub fn connection_attributes(self) -> &'static [(&'static str, &'static str)] {
        match self {
            // CommLog: psqlODBC's communication log, on in Debian's odbcinst.ini, would leave a
            // psqlodbc_*.log in /tmp for every connection.
            Dbms::Postgres => &[("Protocol", "7.4-1"), ("CommLog", "0")],
            _ => &[],
        }
    }

    /// Statements each session runs first so that the text hakari binds means what it says:
    /// Oracle reads a date or a number from text by the session's NLS settings, which follow
    /// the client's locale (`DD-MON-RR` dates, decimal commas in some).
    pub fn session_statements(self) -> &'static [&'static str] {
        match self {
            Dbms::Oracle => &[
                "ALTER SESSION SET NLS_DATE_FORMAT = 'YYYY-MM-DD'",
                "ALTER SESSION SET NLS_TIMESTAMP_FORMAT = 'YYYY-MM-DD HH24:MI:SS.FF'",
                "ALTER SESSION SET NLS_NUMERIC_CHARACTERS = '.,'",
            ],
            _ => &[],
        }
    }

    /// Rows in one INSERT of a bulk load (`VALUES (..), (..)`). Actian Zen's INSERT takes one
    /// row of values; its driver sends the array of parameters in one call all the same.
    pub fn rows_per_insert(self) -> usize {
        match self {
            Dbms::Zen => 1,
            _ => 50,
        }
    }

    /// A query answering the server's version, when there is one.
    pub fn version_query(self) -> Option<&'static str> {
        match self {
            Dbms::Postgres => Some("SHOW server_version"),
            Dbms::Mysql => Some("SELECT VERSION()"),
            Dbms::Sqlite => Some("SELECT sqlite_version()"),
            Dbms::Oracle => Some("SELECT banner FROM v$version WHERE ROWNUM = 1"),
            Dbms::Zen | Dbms::Other => None,
        }
    }

    /// Server settings recorded with the results: (name, query).
    pub fn settings_queries(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Dbms::Postgres => &[
                ("fsync", "SHOW fsync"),
                ("synchronous_commit", "SHOW synchronous_commit"),
                ("full_page_writes", "SHOW full_page_writes"),
                ("shared_buffers", "SHOW shared_buffers"),
            ],
            Dbms::Mysql => &[
                (
                    "innodb_flush_log_at_trx_commit",
                    "SELECT CAST(@@GLOBAL.innodb_flush_log_at_trx_commit AS CHAR)",
                ),
                (
                    "innodb_buffer_pool_size",
                    "SELECT CAST(@@GLOBAL.innodb_buffer_pool_size AS CHAR)",
                ),
                ("sync_binlog", "SELECT CAST(@@GLOBAL.sync_binlog AS CHAR)"),
            ],
            Dbms::Sqlite => &[
                ("journal_mode", "PRAGMA journal_mode"),
                ("synchronous", "PRAGMA synchronous"),
            ],
            Dbms::Oracle => &[(
                "commit_wait",
                "SELECT value FROM v$parameter WHERE name = 'commit_wait'",
            )],
            Dbms::Zen | Dbms::Other => &[],
        }
    }

    /// What durability `level` takes over ODBC on this DBMS: the statements each session runs,
    /// and a server setting that must already hold (query, the value it must answer). Err says
    /// why the level cannot be had from a session.
    pub fn durability(self, level: Durability) -> Result<SessionDurability, String> {
        let session = |statements: &[&'static str]| SessionDurability {
            statements: statements.to_vec(),
            requires: None,
        };
        let needs = |query: &'static str, value: &'static str| SessionDurability {
            statements: Vec::new(),
            requires: Some((query, value)),
        };
        let server_only = || {
            Err(format!(
                "over ODBC hakari sets only what a session may set, and no session on {} can have {} (it needs the server's configuration, or the DBMS has no such mode)",
                self.label(),
                level.name()
            ))
        };
        match (self, level) {
            (Dbms::Postgres, Durability::Sync) => Ok(session(&["SET synchronous_commit = on"])),
            (Dbms::Postgres, Durability::Nosync) => Ok(session(&["SET synchronous_commit = off"])),
            (Dbms::Postgres, Durability::WriteNosync) => Ok(needs("SHOW fsync", "off")),
            (Dbms::Mysql, Durability::Sync) => Ok(needs(MYSQL_FLUSH, "1")),
            (Dbms::Mysql, Durability::WriteNosync) => Ok(needs(MYSQL_FLUSH, "2")),
            (Dbms::Mysql, Durability::Nosync) => Ok(needs(MYSQL_FLUSH, "0")),
            (Dbms::Sqlite, Durability::Sync) => Ok(session(&[
                "PRAGMA journal_mode=WAL",
                "PRAGMA synchronous=FULL",
            ])),
            (Dbms::Sqlite, Durability::WriteNosync) => Ok(session(&[
                "PRAGMA journal_mode=WAL",
                "PRAGMA synchronous=NORMAL",
            ])),
            (Dbms::Sqlite, Durability::None) => Ok(session(&[
                "PRAGMA journal_mode=OFF",
                "PRAGMA synchronous=OFF",
            ])),
            // Oracle's commits wait for the redo log unless a session asks otherwise.
            (Dbms::Oracle, Durability::Sync) => {
                Ok(session(&["ALTER SESSION SET COMMIT_WAIT = 'WAIT'"]))
            }
            (Dbms::Oracle, Durability::Nosync) => Ok(session(&[
                "ALTER SESSION SET COMMIT_WAIT = 'NOWAIT'",
                "ALTER SESSION SET COMMIT_LOGGING = 'BATCH'",
            ])),
            // Zen and an unknown DBMS: their commits are what the server is configured for,
            // which a session can neither set nor read; only the default level is taken.
            (Dbms::Zen | Dbms::Other, Durability::Sync) => Ok(session(&[])),
            _ => server_only(),
        }
    }
}

const MYSQL_FLUSH: &str = "SELECT CAST(@@GLOBAL.innodb_flush_log_at_trx_commit AS CHAR)";

/// What a durability level takes from a session on one DBMS.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionDurability {
    /// Run by each connection when it opens.
    pub statements: Vec<&'static str>,
    /// A server setting that must already hold: (query, the value it must answer).
    pub requires: Option<(&'static str, &'static str)>,
}

impl SessionDurability {
    /// What it sets or needs, for the mapping table.
    pub fn describe(&self) -> String {
        match (&self.requires, self.statements.is_empty()) {
            (Some((query, value)), _) => format!("`{query}` must answer {value}"),
            (None, true) => "the server's own setting".into(),
            (None, false) => self.statements.join("; "),
        }
    }
}

/// How the odbc engine honours `level`, per DBMS; Err when no DBMS gives it to a session.
pub fn mapping(level: Durability) -> Result<String, String> {
    let per: Vec<String> = (Dbms::ALL.iter())
        .filter_map(|d| {
            Some(format!(
                "{}: {}",
                d.label(),
                d.durability(level).ok()?.describe()
            ))
        })
        .collect();
    if per.is_empty() {
        return Err(format!(
            "no DBMS lets a session set {} over ODBC",
            level.name()
        ));
    }
    Ok(format!(
        "by the DBMS the driver reports (others refused on connecting): {}",
        per.join("; ")
    ))
}

/// `connection_string` with `attributes` added where it does not set them already; returns
/// it and the attributes added.
pub fn with_attributes(
    connection_string: &str,
    attributes: &[(&str, &str)],
) -> (String, Vec<String>) {
    let given: Vec<String> = (connection_string.split(';'))
        .filter_map(|part| part.split_once('='))
        .map(|(key, _)| key.trim().to_ascii_lowercase())
        .collect();
    let mut out = connection_string
        .trim_end()
        .trim_end_matches(';')
        .to_string();
    let mut added = Vec::new();
    for (key, value) in attributes {
        if !given.contains(&key.to_ascii_lowercase()) {
            out.push_str(&format!(";{key}={value}"));
            added.push(format!("{key}={value}"));
        }
    }
    (out, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_are_added_only_where_not_given() {
        let attrs = [("Protocol", "7.4-1")];
        let (s, added) = with_attributes("Driver={PostgreSQL Unicode};Server=h;", &attrs);
        assert_eq!(s, "Driver={PostgreSQL Unicode};Server=h;Protocol=7.4-1");
        assert_eq!(added, ["Protocol=7.4-1"]);
        let (s, added) = with_attributes("DSN=pg;protocol=7.4-2", &attrs);
        assert_eq!((s.as_str(), added.len()), ("DSN=pg;protocol=7.4-2", 0));
    }

    #[test]
    fn drivers_names_pick_the_dbms() {
        for (name, dbms) in [
            ("PostgreSQL", Dbms::Postgres),
            ("MariaDB", Dbms::Mysql),
            ("MySQL", Dbms::Mysql),
            ("SQLite", Dbms::Sqlite),
            ("Oracle", Dbms::Oracle),
            ("Pervasive.SQL", Dbms::Zen),
            ("Actian Zen", Dbms::Zen),
            ("Microsoft SQL Server", Dbms::Other),
        ] {
            assert_eq!(Dbms::from_reported(name), dbms, "{name}");
        }
    }

    #[test]
    fn levels_a_session_cannot_set_are_refused() {
        assert!(Dbms::Postgres.durability(Durability::InMemory).is_err());
        assert!(Dbms::Mysql.durability(Durability::None).is_err());
        assert!(Dbms::Other.durability(Durability::Nosync).is_err());
        assert!(Dbms::Zen.durability(Durability::Sync).is_ok());
        let pg = Dbms::Postgres.durability(Durability::WriteNosync).unwrap();
        assert_eq!(pg.requires, Some(("SHOW fsync", "off")));
    }
}
