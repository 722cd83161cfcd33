//! The 32 queries of the chapter's appendix, numbered as there. Several share one SQL text and
//! differ only in the indexes that exist when they run.

use super::generator;
use crate::engine::sql::{Dialect, Row, SqlValue};
use crate::workload::sql;
use anyhow::{bail, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

pub const TENK1: &str = "hakari_wisc_tenk1";
pub const TENK2: &str = "hakari_wisc_tenk2";
pub const ONEK: &str = "hakari_wisc_onektup";
pub const BPRIME: &str = "hakari_wisc_bprime";
/// The result relation of the `store` mode (the original's `INSERT INTO TMP SELECT ...`).
pub const TMP: &str = "hakari_wisc_tmp";

/// Which indexes exist when a query runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Index {
    /// No index at all (and no primary key, which would bring one).
    None,
    /// The clustered index on unique2 is the one that matters.
    Clustered,
    /// The non-clustered (secondary) index on unique1 is the one that matters.
    NonClustered,
    /// Updates run with both indexes, which they must maintain.
    Both,
}

impl Index {
    pub fn label(self) -> &'static str {
        match self {
            Index::None => "no index",
            Index::Clustered => "clustered index",
            Index::NonClustered => "non-clustered index",
            Index::Both => "indexed",
        }
    }
    pub fn needs_indexes(self) -> bool {
        self != Index::None
    }
}

/// The columns a query returns, which the `store` mode's result relation must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A whole tuple (16 attributes).
    Tuple,
    /// Two tuples side by side (32).
    Join2,
    /// Three tuples (48).
    Join3,
    /// Query 18's six attributes.
    Projection1,
    /// Query 19's fourteen attributes.
    Projection100,
    /// One aggregate value.
    Aggregate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A query whose result is stored, fetched or counted as `--result-mode` says.
    Select(Shape),
    /// A query the chapter sends "to the screen": always fetched by the client.
    Screen,
    Insert,
    Delete,
    /// `UPDATE ... SET unique2 = new WHERE unique2 = old` (the key attribute).
    UpdateUnique2,
    /// `UPDATE ... SET unique1 = new WHERE unique1 = old` (an indexed non-key attribute).
    UpdateUnique1,
}

#[derive(Clone, Copy, Debug)]
pub struct Query {
    pub number: u8,
    pub name: &'static str,
    pub index: Index,
    pub kind: Kind,
}

impl Query {
    /// The step name of its measurement: "q01 1% selection (no index)".
    pub fn step(&self) -> String {
        format!("q{:02} {} ({})", self.number, self.name, self.index.label())
    }
    pub fn is_update(&self) -> bool {
        matches!(
            self.kind,
            Kind::Insert | Kind::Delete | Kind::UpdateUnique2 | Kind::UpdateUnique1
        )
    }
}

const fn q(number: u8, name: &'static str, index: Index, kind: Kind) -> Query {
    Query {
        number,
        name,
        index,
        kind,
    }
}

use Index::{Both, Clustered, NonClustered};
use Kind::{Screen, Select};
use Shape::*;

pub const QUERIES: [Query; 32] = [
    q(1, "1% selection", Index::None, Select(Tuple)),
    q(2, "10% selection", Index::None, Select(Tuple)),
    q(3, "1% selection", Clustered, Select(Tuple)),
    q(4, "10% selection", Clustered, Select(Tuple)),
    q(5, "1% selection", NonClustered, Select(Tuple)),
    q(6, "10% selection", NonClustered, Select(Tuple)),
    q(7, "1 tuple selection to screen", Clustered, Screen),
    q(8, "1% selection to screen", Clustered, Screen),
    q(9, "joinAselB", Index::None, Select(Join2)),
    q(10, "joinABprime", Index::None, Select(Join2)),
    q(11, "joinCselAselB", Index::None, Select(Join3)),
    q(12, "joinAselB", Clustered, Select(Join2)),
    q(13, "joinABprime", Clustered, Select(Join2)),
    q(14, "joinCselAselB", Clustered, Select(Join3)),
    q(15, "joinAselB", NonClustered, Select(Join2)),
    q(16, "joinABprime", NonClustered, Select(Join2)),
    q(17, "joinCselAselB", NonClustered, Select(Join3)),
    q(18, "1% projection", Index::None, Select(Projection1)),
    q(19, "100% projection", Index::None, Select(Projection100)),
    q(20, "min aggregate", Index::None, Select(Aggregate)),
    q(
        21,
        "min aggregate 100 groups",
        Index::None,
        Select(Aggregate),
    ),
    q(
        22,
        "sum aggregate 100 groups",
        Index::None,
        Select(Aggregate),
    ),
    q(23, "min aggregate", Clustered, Select(Aggregate)),
    q(24, "min aggregate 100 groups", Clustered, Select(Aggregate)),
    q(25, "sum aggregate 100 groups", Clustered, Select(Aggregate)),
    q(26, "insert 1 tuple", Index::None, Kind::Insert),
    q(27, "delete 1 tuple", Index::None, Kind::Delete),
    q(28, "update key attribute", Index::None, Kind::UpdateUnique2),
    q(29, "insert 1 tuple", Both, Kind::Insert),
    q(30, "delete 1 tuple", Both, Kind::Delete),
    q(31, "update key attribute", Both, Kind::UpdateUnique2),
    q(
        32,
        "update indexed non-key attribute",
        Both,
        Kind::UpdateUnique1,
    ),
];

pub fn query(number: u8) -> &'static Query {
    &QUERIES[number as usize - 1]
}

/// Parses `--queries 1-8,18,20-25`; the result is in ascending order without repeats.
pub fn parse_selection(text: &str) -> Result<Vec<u8>> {
    let number = |s: &str| -> Result<u8> {
        let n: u32 = s
            .trim()
            .parse()
            .with_context(|| format!("'{}' in --queries is not a query number", s.trim()))?;
        if !(1..=32).contains(&n) {
            bail!("there is no query {n}: the Wisconsin queries are numbered 1 to 32");
        }
        Ok(n as u8)
    };
    let mut out = Vec::new();
    for part in text.split(',').filter(|p| !p.trim().is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (number(a)?, number(b)?),
            None => {
                let n = number(part)?;
                (n, n)
            }
        };
        if lo > hi {
            bail!("the range '{}' in --queries is backwards", part.trim());
        }
        out.extend(lo..=hi);
    }
    out.sort();
    out.dedup();
    if out.is_empty() {
        bail!("--queries names no query");
    }
    Ok(out)
}

/// Query 18's answer: the distinct (onePercent, string4) pairs (two, four, ten and twenty are
/// functions of onePercent). At 1,000 tuples not every pair occurs.
pub fn distinct_projection_rows(n: u64) -> u64 {
    if n == 1_000 {
        376
    } else {
        400
    }
}

/// The rows a query must return (or, for an update, change) on relations of `n` tuples.
pub fn expected_rows(q: &Query, n: u64) -> u64 {
    match q.number {
        1 | 3 | 5 | 8 => n / 100,
        2 | 4 | 6 => n / 10,
        7 => 1,
        9..=17 => n / 10,
        18 => distinct_projection_rows(n),
        19 => n,
        20 | 23 => 1,
        21 | 22 | 24 | 25 => 100,
        _ => 1,
    }
}

/// What changes between runs: which of the two big relations plays A (they are identical), where
/// a range starts, which tuple an update touches. Run 0 uses the appendix's constants; the
/// others draw from the run's seed, so every engine gets the same ones.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConstants {
    pub a: &'static str,
    pub b: &'static str,
    /// Start of a selection range.
    pub start: u64,
    /// The tuple an update or single-tuple selection touches.
    pub key: u64,
    /// The new value an update sets, or the key of an inserted tuple (above every existing one).
    pub new_key: u64,
}

impl RunConstants {
    pub fn draw(q: &Query, n: u64, run: usize, seed: u64) -> RunConstants {
        let (a, b) = if run.is_multiple_of(2) {
            (TENK1, TENK2)
        } else {
            (TENK2, TENK1)
        };
        let range = match q.number {
            2 | 4 | 6 => n / 10,
            _ => n / 100,
        };
        // The appendix's constant, scaled down where it lies outside a small relation.
        let canonical = |c: u64| if c < n { c } else { c * n / 10_000 };
        if run == 0 {
            return RunConstants {
                a,
                b,
                start: match q.number {
                    2 | 4 | 6 => canonical(792),
                    _ => 0,
                },
                key: canonical(if q.number == 7 { 2001 } else { 1491 }),
                new_key: n + 1,
            };
        }
        let mut rng = ChaCha8Rng::seed_from_u64(
            seed ^ ((q.number as u64) << 48) ^ (run as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        );
        RunConstants {
            a,
            b,
            start: rng.random_range(0..=n - range),
            key: rng.random_range(0..n),
            new_key: n + 1 + rng.random_range(0..n),
        }
    }
}

/// The SQL of one query in one run.
#[derive(Clone, Debug, PartialEq)]
pub struct QuerySql {
    /// The statement as the chapter words it, without "INSERT INTO TMP".
    pub select: String,
    /// The same query counting its rows in the engine (`count` mode).
    pub count: String,
    /// For updates: statements run untimed before (setup) and after (undo) the timed one.
    pub setup: Vec<String>,
    pub undo: Vec<String>,
}

/// A VALUES list for a tuple.
fn values(row: &Row) -> String {
    row.iter()
        .map(|v| match v {
            SqlValue::Int(i) => i.to_string(),
            SqlValue::Text(t) => format!("'{t}'"),
            _ => "NULL".into(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The file of query `number`'s statements (queries that differ only in the indexes that exist
/// when they run share one).
fn file(number: u8) -> &'static str {
    match number {
        1..=4 | 8 => include_str!("sql/select_unique2_range.sql"),
        5 | 6 => include_str!("sql/select_unique1_range.sql"),
        7 => include_str!("sql/select_one.sql"),
        9 | 12 => include_str!("sql/join_a_sel_b.sql"),
        10 | 13 => include_str!("sql/join_a_bprime.sql"),
        11 | 14 => include_str!("sql/join_c_sel_a_sel_b.sql"),
        15 => include_str!("sql/join_a_sel_b_unique1.sql"),
        16 => include_str!("sql/join_a_bprime_unique1.sql"),
        17 => include_str!("sql/join_c_sel_a_sel_b_unique1.sql"),
        18 => include_str!("sql/projection_1pct.sql"),
        19 => include_str!("sql/projection_100pct.sql"),
        20 | 23 => include_str!("sql/min.sql"),
        21 | 24 => include_str!("sql/min_groups.sql"),
        22 | 25 => include_str!("sql/sum_groups.sql"),
        26 | 29 => include_str!("sql/insert.sql"),
        27 | 30 => include_str!("sql/delete.sql"),
        28 | 31 => include_str!("sql/update_unique2.sql"),
        32 => include_str!("sql/update_unique1.sql"),
        other => unreachable!("query {other} is checked at parse time"),
    }
}

pub fn sql(q: &Query, n: u64, c: &RunConstants) -> QuerySql {
    let range = match q.number {
        2 | 4 | 6 => n / 10,
        _ => n / 100,
    };
    let new_tuple = values(&generator::tuple(c.new_key, c.new_key));
    let text = sql::fill(
        file(q.number),
        &[
            ("a", &c.a),
            ("b", &c.b),
            ("start", &c.start),
            ("end", &(c.start + range.max(1) - 1)),
            ("tenth", &(n / 10)),
            ("key", &c.key),
            ("new_key", &c.new_key),
            ("new_tuple", &new_tuple),
            ("onek", &ONEK),
            ("bprime", &BPRIME),
        ],
    );
    if q.is_update() {
        let file = sql::SqlFile::read(&text, None, &[]);
        let timed = file
            .statement("timed")
            .expect("an update's file times one statement");
        return QuerySql {
            count: timed.to_string(),
            select: timed.to_string(),
            setup: file.statements("setup").to_vec(),
            undo: file.statements("undo").to_vec(),
        };
    }
    let select = sql::statements(&text).remove(0);
    // The count of a plain `SELECT *` counts its FROM and WHERE directly: a derived table of a
    // join would repeat column names.
    let count = match select.strip_prefix("SELECT * FROM ") {
        Some(from_where) => relations("count_from", &[("from_where", &from_where)]),
        None => relations("count_derived", &[("select", &select)]),
    };
    QuerySql {
        select,
        count,
        setup: vec![],
        undo: vec![],
    }
}

/// Statement `name` of `sql/relations.sql`, its placeholders filled.
pub fn relations(name: &str, values: &[(&str, &dyn std::fmt::Display)]) -> String {
    let file = sql::SqlFile::read(include_str!("sql/relations.sql"), None, values);
    let statement = file
        .statement(name)
        .expect("sql/relations.sql names its statements");
    statement.to_string()
}

/// `CREATE TABLE` of a relation named `table`.
pub fn relation_ddl(table: &str) -> String {
    sql::statements(&sql::fill(
        include_str!("sql/relation.sql"),
        &[("table", &table)],
    ))
    .remove(0)
}

/// `CREATE TABLE` of the `store` mode's result relation for a query of this shape.
pub fn tmp_ddl(shape: Shape, dialect: Dialect) -> String {
    let text = match shape {
        Tuple => include_str!("sql/result_tuple.sql"),
        Join2 => include_str!("sql/result_join2.sql"),
        Join3 => include_str!("sql/result_join3.sql"),
        Projection1 => include_str!("sql/result_projection1.sql"),
        Projection100 => include_str!("sql/result_projection100.sql"),
        Aggregate => include_str!("sql/result_aggregate.sql"),
    };
    let bigint = sql::bigint(dialect);
    sql::statements(&sql::fill(text, &[("table", &TMP), ("bigint", &bigint)])).remove(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_parse_and_bad_ones_are_refused() {
        assert_eq!(
            parse_selection("1-8,18,20-25").unwrap(),
            [1, 2, 3, 4, 5, 6, 7, 8, 18, 20, 21, 22, 23, 24, 25]
        );
        assert_eq!(parse_selection("3,1,3").unwrap(), [1, 3]);
        assert!(parse_selection("33")
            .unwrap_err()
            .to_string()
            .contains("no query 33"));
        assert!(parse_selection("0").is_err());
        assert!(parse_selection("5-2").is_err());
        assert!(parse_selection("x").is_err());
        assert!(parse_selection(",").is_err());
    }

    #[test]
    fn numbering_follows_the_appendix() {
        for (i, q) in QUERIES.iter().enumerate() {
            assert_eq!(q.number as usize, i + 1);
        }
        assert_eq!(query(9).name, "joinAselB");
        assert_eq!(query(32).index, Index::Both);
        assert_eq!(query(1).step(), "q01 1% selection (no index)");
        assert_eq!(expected_rows(query(18), 10_000), 400);
        assert_eq!(expected_rows(query(2), 10_000), 1_000);
    }

    #[test]
    fn run_0_uses_the_appendix_constants_and_later_runs_vary() {
        let c = RunConstants::draw(query(2), 10_000, 0, 7);
        assert_eq!(
            sql(query(2), 10_000, &c).select,
            format!("SELECT * FROM {TENK1} WHERE unique2 BETWEEN 792 AND 1791")
        );
        let c = RunConstants::draw(query(28), 10_000, 0, 7);
        assert_eq!(
            sql(query(28), 10_000, &c).select,
            format!("UPDATE {TENK1} SET unique2 = 10001 WHERE unique2 = 1491")
        );
        let r1 = RunConstants::draw(query(1), 10_000, 1, 7);
        assert_eq!(r1.a, TENK2, "odd runs use the other relation");
        assert_eq!(r1, RunConstants::draw(query(1), 10_000, 1, 7), "replayable");
        let starts: std::collections::HashSet<u64> = (1..20)
            .map(|run| RunConstants::draw(query(1), 10_000, run, 7).start)
            .collect();
        assert!(starts.len() > 10);
        for run in 0..50 {
            let c = RunConstants::draw(query(6), 1_000, run, run as u64);
            assert!(c.start + 100 <= 1_000);
            assert!(c.key < 1_000 && c.new_key > 1_000);
        }
    }

    #[test]
    fn result_relations_have_the_query_arity() {
        let arity = |s: Shape| tmp_ddl(s, Dialect::Postgres).matches(',').count() + 1;
        for (input, expected) in [
            (Tuple, 16),
            (Join2, 32),
            (Join3, 48),
            (Projection1, 6),
            (Projection100, 14),
            (Aggregate, 1),
        ] {
            assert_eq!(arity(input), expected, "arity({input:?})");
        }
    }
}
