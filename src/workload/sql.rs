//! SQL files: each workload's statements sit in `sql/` beside it (`sql/<dialect>/` only where a
//! dialect differs), compiled in with `include_str!`. This module splits a file into statements
//! and fills its `{name}` placeholders; `sql/` here holds what several workloads share.

use crate::engine::sql::Dialect;
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

/// The statements of `text` with its placeholders filled.
pub fn filled(text: &str, values: &[(&str, &dyn Display)]) -> Vec<String> {
    statements(&fill(text, values))
}

/// The statements under a `-- [name]` marker of a file, up to the next marker.
pub fn section(text: &str, name: &str) -> Vec<String> {
    let marker = format!("-- [{name}]");
    match text.split_once(&marker) {
        Some((_, rest)) => statements(rest.split("-- [").next().unwrap_or("")),
        None => Vec::new(),
    }
}

/// The one statement under a `-- [name]` marker, with its placeholders filled.
pub fn section_statement(text: &str, name: &str, values: &[(&str, &dyn Display)]) -> String {
    let found = section(&fill(text, values), name);
    assert_eq!(found.len(), 1, "section [{name}] holds one statement");
    found.into_iter().next().unwrap_or_default()
}

/// Refuses a dialect `workload` has no SQL written for, rather than sending SQL that DBMS does
/// not take (tpch, wisconsin and ycsb have none of their own for Oracle and Actian Zen yet;
/// `--dialect standard` sends their standard SQL anyway).
pub fn refuse_unwritten(workload: &str, dialect: Dialect) -> anyhow::Result<()> {
    if matches!(dialect, Dialect::Oracle | Dialect::Zen) {
        anyhow::bail!(
            "the {workload} workload has no SQL written for {} yet (tpcb and session have); --dialect standard sends its standard SQL to try it",
            dialect.name()
        );
    }
    Ok(())
}

/// The statements that gather planner statistics for `table` after a bulk load (none where
/// the DBMS keeps its own).
pub fn analyze(dialect: Dialect, table: &str) -> Vec<String> {
    let text = match dialect {
        Dialect::Postgres => include_str!("sql/postgres/analyze.sql"),
        Dialect::Mysql => include_str!("sql/mysql/analyze.sql"),
        Dialect::Oracle => include_str!("sql/oracle/analyze.sql"),
        Dialect::Zen | Dialect::Standard => include_str!("sql/standard/analyze.sql"),
        Dialect::Sqlite | Dialect::Duckdb => include_str!("sql/analyze.sql"),
    };
    filled(text, &[("table", &table)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_split_into_filled_statements() {
        let text = "-- a comment; not a statement\nCREATE TABLE {t} (a INT);\n\nDROP TABLE {t};\n";
        assert_eq!(
            filled(text, &[("t", &"x")]),
            ["CREATE TABLE x (a INT)", "DROP TABLE x"]
        );
        assert_eq!(analyze(Dialect::Postgres, "t"), ["VACUUM ANALYZE t"]);
        assert!(analyze(Dialect::Standard, "t").is_empty());
    }
}
