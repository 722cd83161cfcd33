//! A database as the place clients leave their results, where they share no disk: `run --out
//! URL` leaves the result file and its interval log as rows of a table of hakari's own,
//! `hakari_results` (on PostgreSQL `hakari_results.files`, in a schema of its own; a file's
//! name and its text), and `merge --from URL --wait N` fetches them,
//! merges them and deletes what it merged (the table too, once empty). The password comes from
//! where the engine's ecosystem keeps it, never from the URL on a command line.

use crate::durability::Durability;
use crate::engine::sql::{Dialect, SqlConnection, SqlDatabase, SqlOptions, SqlValue};
use crate::results::redact::redact;
use anyhow::{anyhow, Context, Result};
use std::path::{Path, PathBuf};

/// hakari's table in the user's database; nothing else there is touched.
pub use crate::engine::sql::RESULTS_TABLE as TABLE;

/// Whether an `--out` or `--from` value names a database rather than a folder.
pub fn is_url(place: &Path) -> bool {
    place.to_str().is_some_and(|s| s.contains("://"))
}

/// A connection to the database at `url`, through the SQL engine that takes its scheme; the
/// database is used as given (nothing of the user's claimed or dropped).
struct Place {
    _database: Box<dyn SqlDatabase>,
    connection: Box<dyn SqlConnection>,
    /// The table's name as the statements give it: on PostgreSQL in a schema of its own
    /// (`hakari_results.files`), since an unqualified name would follow the search path into a
    /// run's own schema (`hakari`, first in the path for a user named hakari), which that run
    /// drops with the files in it.
    table: &'static str,
}

impl Place {
    fn open(url: &str) -> Result<Place> {
        let scheme = crate::engine::url_scheme(url).unwrap_or_default();
        let engine = (crate::engine::sql_engines().into_iter())
            .find(|e| e.url_schemes().contains(&scheme))
            .ok_or_else(|| {
                anyhow!(
                    "{}: no SQL engine takes this URL as a place for results (postgres://, mysql://)",
                    redact(url)
                )
            })?;
        let options = SqlOptions {
            url: Some(url.to_string()),
            ..SqlOptions::at(&std::env::temp_dir(), Durability::Sync)
        };
        let database = (engine.open_as_given(&options))
            .with_context(|| format!("cannot reach {} for the results", redact(url)))?;
        let connection = database.connect()?;
        let table = match connection.dialect() {
            Dialect::Postgres => "hakari_results.files",
            _ => TABLE,
        };
        Ok(Place {
            _database: database,
            connection,
            table,
        })
    }

    fn create(&mut self) -> Result<()> {
        let text = match self.connection.dialect() {
            Dialect::Mysql => "LONGTEXT",
            _ => "TEXT",
        };
        let table = self.table;
        let create = format!(
            "CREATE TABLE IF NOT EXISTS {table} (name VARCHAR(255) PRIMARY KEY, body {text} NOT NULL)"
        );
        // Clients starting together race to make it, and PostgreSQL's IF NOT EXISTS loses
        // that race with an error: the table made by another is as good.
        let made = match table.split_once('.') {
            Some((schema, _)) => (self.connection)
                .execute(&format!("CREATE SCHEMA IF NOT EXISTS {schema}"))
                .and_then(|_| self.connection.execute(&create)),
            None => self.connection.execute(&create),
        };
        match made {
            Ok(_) => Ok(()),
            Err(e) => {
                std::thread::sleep(std::time::Duration::from_millis(200));
                (self
                    .connection
                    .query(&format!("SELECT name FROM {table} WHERE 1 = 0")))
                .map(|_| ())
                .map_err(|_| e)
            }
        }
    }

    /// Every file left, by name and text (the table made first where it is not there yet).
    fn files(&mut self) -> Result<Vec<(String, String)>> {
        self.create()?;
        let rows = (self.connection).query(&format!("SELECT name, body FROM {}", self.table))?;
        Ok(rows
            .into_iter()
            .map(|row| {
                // Text, unless a driver read a body that looks like a number as one.
                let mut text = row.into_iter().map(|v| match v {
                    SqlValue::Text(s) => s,
                    SqlValue::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
                    SqlValue::Int(i) => i.to_string(),
                    SqlValue::Float(f) => f.to_string(),
                    SqlValue::Null => String::new(),
                });
                (
                    text.next().unwrap_or_default(),
                    text.next().unwrap_or_default(),
                )
            })
            .collect())
    }
}

/// Whether the database at `url` can take results (reached, hakari's table there or made), so
/// that a run with nowhere to leave them is refused before it starts.
pub fn check(url: &str) -> Result<()> {
    Place::open(url)?.create()
}

/// A run that leaves its files in a database (`--out URL`): the folder it writes into
/// meanwhile, removed when this is dropped.
pub struct Leaving {
    url: String,
    folder: tempfile::TempDir,
}

impl Leaving {
    /// Checks that the database can take the results before anything runs.
    pub fn to(url: &str) -> Result<Leaving> {
        check(url)?;
        Ok(Leaving {
            url: url.to_string(),
            folder: tempfile::Builder::new().prefix("hakari-out-").tempdir()?,
        })
    }

    pub fn folder(&self) -> &Path {
        self.folder.path()
    }

    /// Leaves every result the run wrote in the folder, with its interval log (in `hlogs`).
    pub fn leave(self, hlogs: &Path) -> Result<()> {
        let mut files = Vec::new();
        for result in crate::results::store::expand(&[self.folder().to_path_buf()])? {
            let hlog = hlogs.join(
                result
                    .with_extension("hlog")
                    .file_name()
                    .unwrap_or_default(),
            );
            files.push(result);
            files.extend(Some(hlog).filter(|h| h.exists()));
        }
        let url = redact(&self.url);
        if files.is_empty() {
            eprintln!("nothing left in {url}: the run wrote no result");
            return Ok(());
        }
        leave(&self.url, &files)?;
        let names: Vec<_> = (files.iter())
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        eprintln!(
            "left in {url} (table {TABLE}): {} (the folder above is removed)",
            names.join(", ")
        );
        Ok(())
    }
}

/// Leaves each file (a result, its interval log) in the database at `url` under its name,
/// replacing one of that name, in one transaction.
pub fn leave(url: &str, files: &[PathBuf]) -> Result<()> {
    let mut place = Place::open(url)?;
    place.create()?;
    let (c, table) = (&mut place.connection, place.table);
    let delete = c.prepare(&format!("DELETE FROM {table} WHERE name = ?"))?;
    let insert = c.prepare(&format!("INSERT INTO {table} (name, body) VALUES (?, ?)"))?;
    c.begin()?;
    for file in files {
        let name = (file.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| anyhow!("{}: not a file", file.display()))?;
        let body = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        c.exec_prepared(delete, &[SqlValue::Text(name.clone())])?;
        c.exec_prepared(insert, &[SqlValue::Text(name), SqlValue::Text(body)])?;
    }
    c.commit()
}

/// Writes every file left in the database at `url` into `dir` (each whole, by a rename), and
/// returns their names.
pub fn fetch(url: &str, dir: &Path) -> Result<Vec<String>> {
    let mut place = Place::open(url)?;
    let mut names = Vec::new();
    for (name, body) in place.files()? {
        // A name is a file's own name (`leave` took it so); anything else is not written.
        if name.is_empty() || name.contains('/') || name.starts_with('.') {
            continue;
        }
        crate::results::store::write_text_atomic(&dir.join(&name), &body)?;
        names.push(name);
    }
    Ok(names)
}

/// Deletes the named files from the database at `url`, and hakari's table once it is empty.
pub fn remove(url: &str, names: &[String]) -> Result<()> {
    let mut place = Place::open(url)?;
    let (c, table) = (&mut place.connection, place.table);
    let delete = c.prepare(&format!("DELETE FROM {table} WHERE name = ?"))?;
    for name in names {
        c.exec_prepared(delete, &[SqlValue::Text(name.clone())])?;
    }
    if place.files()?.is_empty() {
        place.connection.execute(&format!("DROP TABLE {table}"))?;
        if let Some((schema, _)) = table.split_once('.') {
            // Without CASCADE: only the schema hakari made, and only when nothing else is in it.
            place.connection.execute(&format!("DROP SCHEMA {schema}"))?;
        }
    }
    Ok(())
}
