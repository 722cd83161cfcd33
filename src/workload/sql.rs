//! SQL files: each workload's statements sit in `sql/` beside it (`sql/<dialect>/` only where a
//! dialect differs), compiled in with `include_str!`. This module splits a file into statements
//! and fills its `{name}` placeholders; `sql/` here holds what several workloads share.

use crate::engine::sql::{Dialect, SqlConnection};
use anyhow::Context;
use std::fmt::Display;

/// The statements of a SQL file: `--` comment lines dropped, split at `;`, each trimmed.
pub fn statements(text: &str) -> Vec<String> {
    let body: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .collect();
    body.join("\n")
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// `text` with each `{name}` replaced by its value.
pub fn fill(text: &str, values: &[(&str, &dyn Display)]) -> String {
    let mut out = text.to_string();
    for (name, value) in values {
        out = out.replace(&format!("{{{name}}}"), &value.to_string());
    }
    out
}

/// A SQL file of named sections: each `-- [name]` marker starts one, up to the next marker. A
/// dialect's file (`sql/<dialect>/<file>`) overrides a section by name; what it does not name comes
/// from the shared file (BenchBase's dialect files). This is the one way hakari reads named SQL; a
/// file without markers is read with [`statements`].
pub struct SqlFile(Vec<(String, Vec<String>)>);

impl SqlFile {
    /// The sections of `shared`, those `dialect` names taken from it instead, placeholders filled
    /// in both.
    pub fn read(shared: &str, dialect: Option<&str>, values: &[(&str, &dyn Display)]) -> SqlFile {
        let mut named = sections(&fill(shared, values));
        for (name, statements) in sections(&fill(dialect.unwrap_or(""), values)) {
            match named.iter_mut().find(|(n, _)| *n == name) {
                Some(shared) => shared.1 = statements,
                None => named.push((name, statements)),
            }
        }
        SqlFile(named)
    }

    /// The one statement of section `name`: a file without it, or with more than one there, is a
    /// mistake in hakari's SQL.
    pub fn statement(&self, name: &str) -> anyhow::Result<&str> {
        match self.statements(name) {
            [one] => Ok(one),
            [] => anyhow::bail!("no statement [{name}] in the SQL file"),
            _ => anyhow::bail!("section [{name}] of the SQL file holds more than one statement"),
        }
    }

    /// The statements of section `name`, none where the file has no such section.
    pub fn statements(&self, name: &str) -> &[String] {
        let found = self.0.iter().find(|(n, _)| n == name);
        found.map(|(_, s)| s.as_slice()).unwrap_or_default()
    }
}

/// Every `-- [name]` section of `text` with its statements, in order.
fn sections(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for part in text.split("-- [").skip(1) {
        if let Some((name, rest)) = part.split_once(']') {
            out.push((name.to_string(), statements(rest)));
        }
    }
    out
}

/// The dialect's 64-bit integer column type. Oracle has no BIGINT: NUMERIC(19) is the ANSI type
/// it takes for one (its NUMBER(19)).
pub fn bigint(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Oracle => "NUMERIC(19)",
        _ => "BIGINT",
    }
}

/// The dialect's column type for text of at most `length` characters: TEXT where the DBMS has
/// it, else VARCHAR up to the longest the DBMS keeps in the row and a long type beyond.
pub fn text(dialect: Dialect, length: usize) -> String {
    match dialect {
        Dialect::Oracle if length <= 4000 => format!("VARCHAR({length})"),
        Dialect::Oracle => "CLOB".into(),
        Dialect::Zen if length <= 8000 => format!("VARCHAR({length})"),
        Dialect::Zen => "LONGVARCHAR".into(),
        _ => "TEXT".into(),
    }
}

/// The clause that keeps the first `count` rows (a number or `?`) of an ordered query: LIMIT,
/// or the standard FETCH FIRST on Oracle, which has no LIMIT.
pub fn limit(dialect: Dialect, count: &str) -> String {
    match dialect {
        Dialect::Oracle => format!("fetch first {count} rows only"),
        _ => format!("limit {count}"),
    }
}

/// Gathers the planner's statistics on `table` after a bulk load, the DBMS's own way (nothing
/// where it keeps its own).
pub fn gather_statistics(c: &mut dyn SqlConnection, table: &str) -> anyhow::Result<()> {
    for stmt in analyze(c.statistics_dialect(), table) {
        c.execute(&stmt)
            .with_context(|| format!("gathering statistics of {table}: {stmt}"))?;
    }
    Ok(())
}

/// The statements that gather planner statistics for `table` in `dialect`.
fn analyze(dialect: Dialect, table: &str) -> Vec<String> {
    let text = match dialect {
        Dialect::Postgres => include_str!("sql/postgres/analyze.sql"),
        Dialect::Mysql => include_str!("sql/mysql/analyze.sql"),
        Dialect::Oracle => include_str!("sql/oracle/analyze.sql"),
        Dialect::Zen | Dialect::Standard => include_str!("sql/standard/analyze.sql"),
        Dialect::Sqlite | Dialect::Duckdb => include_str!("sql/analyze.sql"),
    };
    statements(&fill(text, &[("table", &table)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_split_into_filled_statements() {
        let text = "-- a comment; not a statement\nCREATE TABLE {t} (a INT);\n\nDROP TABLE {t};\n";
        assert_eq!(
            statements(&fill(text, &[("t", &"x")])),
            ["CREATE TABLE x (a INT)", "DROP TABLE x"]
        );
        assert_eq!(analyze(Dialect::Postgres, "t"), ["VACUUM ANALYZE t"]);
    }

    #[test]
    fn a_dialect_overrides_statements_by_name() {
        let shared =
            "-- [create]\nCREATE TABLE {t} (a BLOB);\n-- [drop]\n-- a comment\nDROP TABLE {t};\n";
        let dialect = "-- the dialect's own\n-- [create]\nCREATE TABLE {t} (a BYTEA);\n";
        let named = SqlFile::read(shared, Some(dialect), &[("t", &"x")]);
        assert_eq!(
            named.statement("create").unwrap(),
            "CREATE TABLE x (a BYTEA)"
        );
        assert_eq!(named.statement("drop").unwrap(), "DROP TABLE x");
        let plain = SqlFile::read(shared, None, &[("t", &"x")]);
        assert_eq!(
            plain.statement("create").unwrap(),
            "CREATE TABLE x (a BLOB)"
        );
        assert!(plain.statement("insert").is_err());
        assert!(plain.statements("insert").is_empty());
        let two = SqlFile::read("-- [setup]\nA;\nB;\n-- [timed]\nC;\n", None, &[]);
        assert_eq!(two.statements("setup"), ["A", "B"]);
        assert!(two.statement("setup").is_err());
        assert!(analyze(Dialect::Standard, "t").is_empty());
    }
}
