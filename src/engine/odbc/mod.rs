//! `odbc`: any database with an ODBC driver, through the `odbc-api` crate over unixODBC. The
//! connection string (or DSN) comes in `--url 'odbc:...'`; the dialect follows the DBMS the driver
//! reports (`--dialect` overrides it). hakari works in the connection's database only if it holds
//! no tables or carries hakari's marker table, as with the native server engines; durability is
//! what a session may set, and a level that needs the server's configuration is refused.

mod connection;
pub mod dbms;
mod params;

use super::sql::{Dialect, SqlConnection, SqlDatabase, SqlEngine, SqlOptions};
use crate::durability::Durability;
use crate::results::redact::redact;
use anyhow::{anyhow, bail, Result};
use connection::OdbcConnection;
use dbms::{Dbms, SessionDurability};
use odbc_api::{Connection, ConnectionOptions};

pub struct Odbc;

/// The scheme that marks a URL as an ODBC connection string.
const SCHEME: &str = "odbc:";
/// hakari's marker table: a database holding it is hakari's to use.
const MARKER: &str = "hakari_owner";

impl SqlEngine for Odbc {
    fn url_schemes(&self) -> &'static [&'static str] {
        &["odbc"]
    }
    fn dialect(&self) -> Option<Dialect> {
        None
    }
    fn mapping(&self, level: Durability) -> std::result::Result<String, String> {
        dbms::mapping(level)
    }
    fn open(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>> {
        open(options, true)
    }
    fn open_as_given(&self, options: &SqlOptions) -> Result<Box<dyn SqlDatabase>> {
        open(options, false)
    }
}

/// The ODBC environment, one per process as unixODBC wants it.
fn environment() -> Result<&'static odbc_api::Environment> {
    odbc_api::environment().map_err(|e| {
        anyhow!(
            "cannot start unixODBC's driver manager: {}",
            connection::describe(&e)
        )
    })
}

/// The driver a connection string names (`Driver={...}`), or its DSN, for messages.
fn driver_of(connection_string: &str) -> String {
    for part in connection_string.split(';') {
        if let Some((key, value)) = part.split_once('=') {
            let key = key.trim().to_ascii_lowercase();
            if key == "driver" || key == "dsn" {
                let value = value.trim().trim_start_matches('{').trim_end_matches('}');
                return format!("{} {value}", key.to_ascii_uppercase());
            }
        }
    }
    "no DRIVER or DSN named".into()
}

/// Connects with `connection_string`, naming the driver and what it said when that fails.
fn connect(connection_string: &str) -> Result<Connection<'static>> {
    // Through unixODBC to MariaDB's Unicode driver, a string without a closing ';' connected
    // as user 'rootao' for "UID=root": bytes after its end were read (which layer does it is
    // not established). A closing ';' ends the last attribute where it ends.
    // psqlODBC named by its driver: its communication log off from the first connection on
    // (the DBMS's attributes add it to the later ones, whatever names the driver).
    let connection_string = match driver_of(connection_string).to_ascii_lowercase() {
        d if d.starts_with("driver") && (d.contains("postgres") || d.contains("psqlodbc")) => {
            dbms::with_attributes(connection_string, &[("CommLog", "0")]).0
        }
        _ => connection_string.to_string(),
    };
    let terminated = match connection_string.trim_end().ends_with(';') {
        true => connection_string.clone(),
        false => format!("{connection_string};"),
    };
    environment()?
        .connect_with_connection_string(&terminated, ConnectionOptions::default())
        .map_err(|e| {
            let mut why = redact(&connection::describe(&e));
            if why.contains("IM002") || why.contains("Can't open lib") {
                let installed = drivers_list();
                why = format!("{why}; the drivers installed (odbcinst -q -d) are: {installed}");
            }
            anyhow!(
                "cannot connect through ODBC ({}): {why}",
                driver_of(&connection_string)
            )
        })
}

/// The ODBC drivers unixODBC knows (for `hakari engines` and messages).
pub fn installed_drivers() -> Vec<String> {
    environment()
        .and_then(|env| env.drivers().map_err(|e| anyhow!("{e}")))
        .map(|drivers| drivers.into_iter().map(|d| d.description).collect())
        .unwrap_or_default()
}

/// The installed drivers as a list for a message.
fn drivers_list() -> String {
    let names = installed_drivers();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn open(options: &SqlOptions, claim: bool) -> Result<Box<dyn SqlDatabase>> {
    let Some(url) = &options.url else {
        bail!("the odbc engine reaches a database through its ODBC driver: give --url 'odbc:DSN=name;UID=..;PWD=..' or --url 'odbc:Driver={{driver}};Server=..;Database=..' (installed drivers: {})", drivers_list());
    };
    let Some(connection_string) = url.strip_prefix(SCHEME) else {
        bail!(
            "the odbc engine takes a URL starting with 'odbc:' followed by an ODBC connection string, not {}",
            redact(url)
        );
    };
    let conn = connect(connection_string)?;
    let reported = conn.database_management_system_name().map_err(|e| {
        anyhow!(
            "the ODBC driver does not name its DBMS: {}",
            connection::describe(&e)
        )
    })?;
    let dbms = Dbms::from_reported(&reported);
    let dialect = options.dialect.unwrap_or(dbms.dialect());
    if dbms == Dbms::Other && options.dialect.is_none() {
        eprintln!("note: odbc: hakari does not know the DBMS '{reported}': it sends the workloads' standard SQL (--dialect picks another), untested there");
    } else if !dbms::tested(dbms) {
        eprintln!("note: odbc: {reported} is reached with the {} dialect, written from its documentation and not tested by hakari", dialect.name());
    }
    let durability = dbms.durability(options.durability).map_err(|why| {
        anyhow!(
            "durability '{}' through ODBC on {reported}: {why}",
            options.durability
        )
    })?;
    let mut admin = OdbcConnection::new(conn, dialect, dbms)?;
    if let Some((query, value)) = durability.requires {
        let found = first_value(&mut admin, query).unwrap_or_else(|_| "unknown".into());
        if !found.eq_ignore_ascii_case(value) {
            bail!("durability '{}' needs `{query}` to answer {value} on this {reported} server, but it answers {found}; hakari does not change a server's configuration through ODBC (pick the level that matches)", options.durability);
        }
    }
    let created_marker = claim && claim_database(&mut admin)?;
    let (connection_string, added) =
        dbms::with_attributes(connection_string, dbms.connection_attributes());
    Ok(Box::new(OdbcDatabase {
        connection_string,
        added,
        reported,
        dbms,
        dialect,
        durability,
        created_marker,
    }))
}

/// The first column of the first row `query` answers, as text.
fn first_value(c: &mut OdbcConnection, query: &str) -> Result<String> {
    let rows = c.query(query)?;
    match rows.first().and_then(|r| r.first()) {
        Some(crate::engine::sql::SqlValue::Text(t)) => Ok(t.clone()),
        Some(crate::engine::sql::SqlValue::Int(i)) => Ok(i.to_string()),
        Some(crate::engine::sql::SqlValue::Float(f)) => Ok(f.to_string()),
        _ => bail!("`{query}` answered nothing"),
    }
}

/// The names of the tables in the connection's database.
fn tables(c: &mut OdbcConnection) -> Result<Vec<String>> {
    let query = c.dbms().tables_query();
    let rows = c.query(query).map_err(|e| {
        anyhow!("cannot list the tables of this database ({e}); hakari works only in a database it can check holds nothing of anyone else's")
    })?;
    Ok(rows
        .iter()
        .filter_map(|r| match r.first() {
            Some(crate::engine::sql::SqlValue::Text(t)) => Some(t.trim().to_string()),
            _ => None,
        })
        .collect())
}

/// Works in the connection's database only if it holds no tables or carries hakari's marker;
/// otherwise refuses, listing what it holds. Returns whether the marker was created now.
fn claim_database(c: &mut OdbcConnection) -> Result<bool> {
    let found = tables(c)?;
    let marked = found.iter().any(|t| t.eq_ignore_ascii_case(MARKER));
    if !found.is_empty() && !marked {
        bail!(
            "the database holds tables hakari did not create ({}); hakari works only in an empty database or one it owns, and will not touch them",
            found.join(", ")
        );
    }
    if !marked {
        c.execute(&format!("CREATE TABLE {MARKER} (note VARCHAR(200))"))?;
        c.execute(&format!("INSERT INTO {MARKER} (note) VALUES ('created by hakari: every table in this database is hakari''s')"))?;
    }
    Ok(!marked)
}

struct OdbcDatabase {
    /// The user's connection string, with `added`.
    connection_string: String,
    /// Attributes hakari added for the DBMS's driver (`Dbms::connection_attributes`).
    added: Vec<String>,
    /// The DBMS as the driver names it.
    reported: String,
    dbms: Dbms,
    dialect: Dialect,
    durability: SessionDurability,
    created_marker: bool,
}

impl OdbcDatabase {
    fn open_connection(&self) -> Result<OdbcConnection> {
        let mut c =
            OdbcConnection::new(connect(&self.connection_string)?, self.dialect, self.dbms)?;
        let session = self.dbms.session_statements().iter();
        for statement in session.chain(&self.durability.statements) {
            c.execute(statement)?;
        }
        Ok(c)
    }
}

impl SqlDatabase for OdbcDatabase {
    fn connect(&self) -> Result<Box<dyn SqlConnection>> {
        Ok(Box::new(self.open_connection()?))
    }
    fn version(&self) -> String {
        let version = (self.dbms.version_query())
            .and_then(|q| {
                self.open_connection()
                    .ok()
                    .map(|mut c| first_value(&mut c, q))
            })
            .and_then(Result::ok);
        match version {
            Some(v) => format!("{} {v}", self.reported),
            None => self.reported.clone(),
        }
    }
    fn settings(&self) -> Vec<(String, String)> {
        let mut out = vec![
            ("server".into(), "given (--url, through ODBC)".into()),
            ("driver".into(), driver_of(&self.connection_string)),
            ("dbms".into(), self.reported.clone()),
            ("dialect".into(), self.dialect.name().into()),
            (
                "connection attributes added".into(),
                if self.added.is_empty() {
                    "none".into()
                } else {
                    self.added.join(";")
                },
            ),
            (
                "tested by hakari".into(),
                if dbms::tested(self.dbms) { "yes" } else { "no" }.into(),
            ),
            (
                "large values".into(),
                format!(
                    "byte values of {} KiB or more sent in parts of {} KiB (SQLPutData)",
                    params::STREAM_FROM >> 10,
                    params::PART_BYTES >> 10
                ),
            ),
            (
                "session settings".into(),
                if self.durability.statements.is_empty() {
                    "none".into()
                } else {
                    self.durability.statements.join("; ")
                },
            ),
        ];
        if let Ok(mut c) = self.open_connection() {
            for (name, query) in self.dbms.settings_queries() {
                if let Ok(v) = first_value(&mut c, query) {
                    out.push((name.to_string(), v));
                }
            }
        }
        out
    }
    fn close(self: Box<Self>) -> Result<()> {
        if self.created_marker {
            // Leave the database as found: the marker goes if nothing else of hakari's is left.
            let mut c = self.open_connection()?;
            let left = tables(&mut c)?;
            if left.iter().all(|t| t.eq_ignore_ascii_case(MARKER)) {
                c.execute(&format!("DROP TABLE {MARKER}"))?;
            }
        }
        Ok(())
    }
}
