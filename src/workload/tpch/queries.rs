//! The 22 query templates (queries/qNN.sql), qgen-style parameter substitution (from a seed, or
//! the qualification values), the few dialect substitutions, and the stream permutations.
//!
//! Template syntax: `:k` is substitution parameter k (qgen's), `{date 1995-03-15 +3 month}` is a
//! date literal computed here (so no engine's interval arithmetic is needed), `{year col}` is the
//! year of a date column, `{stream}` the stream number (query 15's view name).

use crate::engine::kv::retry_conflicts;
use crate::engine::sql::{Dialect, Row, SqlConnection};
use anyhow::{bail, Context, Result};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use tpchgen::distribution::Distributions;

const TEMPLATES: [&str; 22] = [
    include_str!("queries/q01.sql"),
    include_str!("queries/q02.sql"),
    include_str!("queries/q03.sql"),
    include_str!("queries/q04.sql"),
    include_str!("queries/q05.sql"),
    include_str!("queries/q06.sql"),
    include_str!("queries/q07.sql"),
    include_str!("queries/q08.sql"),
    include_str!("queries/q09.sql"),
    include_str!("queries/q10.sql"),
    include_str!("queries/q11.sql"),
    include_str!("queries/q12.sql"),
    include_str!("queries/q13.sql"),
    include_str!("queries/q14.sql"),
    include_str!("queries/q15.sql"),
    include_str!("queries/q16.sql"),
    include_str!("queries/q17.sql"),
    include_str!("queries/q18.sql"),
    include_str!("queries/q19.sql"),
    include_str!("queries/q20.sql"),
    include_str!("queries/q21.sql"),
    include_str!("queries/q22.sql"),
];

/// Appendix A / qgen's permute.h: the order of the 22 queries in stream s (s mod 41).
pub const PERMUTATION: [[u8; 22]; 41] = [
    [
        14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12,
    ],
    [
        21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4,
    ],
    [
        6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21,
    ],
    [
        8, 5, 4, 6, 17, 7, 1, 18, 22, 14, 9, 10, 15, 11, 20, 2, 21, 19, 13, 16, 12, 3,
    ],
    [
        5, 21, 14, 19, 15, 17, 12, 6, 4, 9, 8, 16, 11, 2, 10, 18, 1, 13, 7, 22, 3, 20,
    ],
    [
        21, 15, 4, 6, 7, 16, 19, 18, 14, 22, 11, 13, 3, 1, 2, 5, 8, 20, 12, 17, 10, 9,
    ],
    [
        10, 3, 15, 13, 6, 8, 9, 7, 4, 11, 22, 18, 12, 1, 5, 16, 2, 14, 19, 20, 17, 21,
    ],
    [
        18, 8, 20, 21, 2, 4, 22, 17, 1, 11, 9, 19, 3, 13, 5, 7, 10, 16, 6, 14, 15, 12,
    ],
    [
        19, 1, 15, 17, 5, 8, 9, 12, 14, 7, 4, 3, 20, 16, 6, 22, 10, 13, 2, 21, 18, 11,
    ],
    [
        8, 13, 2, 20, 17, 3, 6, 21, 18, 11, 19, 10, 15, 4, 22, 1, 7, 12, 9, 14, 5, 16,
    ],
    [
        6, 15, 18, 17, 12, 1, 7, 2, 22, 13, 21, 10, 14, 9, 3, 16, 20, 19, 11, 4, 8, 5,
    ],
    [
        15, 14, 18, 17, 10, 20, 16, 11, 1, 8, 4, 22, 5, 12, 3, 9, 21, 2, 13, 6, 19, 7,
    ],
    [
        1, 7, 16, 17, 18, 22, 12, 6, 8, 9, 11, 4, 2, 5, 20, 21, 13, 10, 19, 3, 14, 15,
    ],
    [
        21, 17, 7, 3, 1, 10, 12, 22, 9, 16, 6, 11, 2, 4, 5, 14, 8, 20, 13, 18, 15, 19,
    ],
    [
        2, 9, 5, 4, 18, 1, 20, 15, 16, 17, 7, 21, 13, 14, 19, 8, 22, 11, 10, 3, 12, 6,
    ],
    [
        16, 9, 17, 8, 14, 11, 10, 12, 6, 21, 7, 3, 15, 5, 22, 20, 1, 13, 19, 2, 4, 18,
    ],
    [
        1, 3, 6, 5, 2, 16, 14, 22, 17, 20, 4, 9, 10, 11, 15, 8, 12, 19, 18, 13, 7, 21,
    ],
    [
        3, 16, 5, 11, 21, 9, 2, 15, 10, 18, 17, 7, 8, 19, 14, 13, 1, 4, 22, 20, 6, 12,
    ],
    [
        14, 4, 13, 5, 21, 11, 8, 6, 3, 17, 2, 20, 1, 19, 10, 9, 12, 18, 15, 7, 22, 16,
    ],
    [
        4, 12, 22, 14, 5, 15, 16, 2, 8, 10, 17, 9, 21, 7, 3, 6, 13, 18, 11, 20, 19, 1,
    ],
    [
        16, 15, 14, 13, 4, 22, 18, 19, 7, 1, 12, 17, 5, 10, 20, 3, 9, 21, 11, 2, 6, 8,
    ],
    [
        20, 14, 21, 12, 15, 17, 4, 19, 13, 10, 11, 1, 16, 5, 18, 7, 8, 22, 9, 6, 3, 2,
    ],
    [
        16, 14, 13, 2, 21, 10, 11, 4, 1, 22, 18, 12, 19, 5, 7, 8, 6, 3, 15, 20, 9, 17,
    ],
    [
        18, 15, 9, 14, 12, 2, 8, 11, 22, 21, 16, 1, 6, 17, 5, 10, 19, 4, 20, 13, 3, 7,
    ],
    [
        7, 3, 10, 14, 13, 21, 18, 6, 20, 4, 9, 8, 22, 15, 2, 1, 5, 12, 19, 17, 11, 16,
    ],
    [
        18, 1, 13, 7, 16, 10, 14, 2, 19, 5, 21, 11, 22, 15, 8, 17, 20, 3, 4, 12, 6, 9,
    ],
    [
        13, 2, 22, 5, 11, 21, 20, 14, 7, 10, 4, 9, 19, 18, 6, 3, 1, 8, 15, 12, 17, 16,
    ],
    [
        14, 17, 21, 8, 2, 9, 6, 4, 5, 13, 22, 7, 15, 3, 1, 18, 16, 11, 10, 12, 20, 19,
    ],
    [
        10, 22, 1, 12, 13, 18, 21, 20, 2, 14, 16, 7, 15, 3, 4, 17, 5, 19, 6, 8, 9, 11,
    ],
    [
        10, 8, 9, 18, 12, 6, 1, 5, 20, 11, 17, 22, 16, 3, 13, 2, 15, 21, 14, 19, 7, 4,
    ],
    [
        7, 17, 22, 5, 3, 10, 13, 18, 9, 1, 14, 15, 21, 19, 16, 12, 8, 6, 11, 20, 4, 2,
    ],
    [
        2, 9, 21, 3, 4, 7, 1, 11, 16, 5, 20, 19, 18, 8, 17, 13, 10, 12, 15, 6, 14, 22,
    ],
    [
        15, 12, 8, 4, 22, 13, 16, 17, 18, 3, 7, 5, 6, 1, 9, 11, 21, 10, 14, 20, 19, 2,
    ],
    [
        15, 16, 2, 11, 17, 7, 5, 14, 20, 4, 21, 3, 10, 9, 12, 8, 13, 6, 18, 19, 22, 1,
    ],
    [
        1, 13, 11, 3, 4, 21, 6, 14, 15, 22, 18, 9, 7, 5, 10, 20, 12, 16, 17, 8, 19, 2,
    ],
    [
        14, 17, 22, 20, 8, 16, 5, 10, 1, 13, 2, 21, 12, 9, 4, 18, 3, 7, 6, 19, 15, 11,
    ],
    [
        9, 17, 7, 4, 5, 13, 21, 18, 11, 3, 22, 1, 6, 16, 20, 14, 15, 10, 8, 2, 12, 19,
    ],
    [
        13, 14, 5, 22, 19, 11, 9, 6, 18, 15, 8, 10, 7, 4, 17, 16, 3, 1, 12, 2, 21, 20,
    ],
    [
        20, 5, 4, 14, 11, 1, 6, 16, 8, 22, 7, 3, 2, 12, 21, 19, 17, 13, 10, 15, 18, 9,
    ],
    [
        3, 7, 14, 15, 6, 5, 21, 20, 18, 10, 4, 16, 19, 1, 13, 9, 8, 17, 11, 12, 22, 2,
    ],
    [
        13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21, 9, 8, 2, 18, 16, 6, 10, 12, 5, 19,
    ],
];

/// The order of queries in stream `s` (the power test is stream 0).
pub fn order(stream: usize) -> [u8; 22] {
    PERMUTATION[stream % PERMUTATION.len()]
}

/// The 25 nations with their region keys (fixed by the spec).
const NATIONS: [(&str, usize); 25] = [
    ("ALGERIA", 0),
    ("ARGENTINA", 1),
    ("BRAZIL", 1),
    ("CANADA", 1),
    ("EGYPT", 4),
    ("ETHIOPIA", 0),
    ("FRANCE", 3),
    ("GERMANY", 3),
    ("INDIA", 2),
    ("INDONESIA", 2),
    ("IRAN", 4),
    ("IRAQ", 4),
    ("JAPAN", 2),
    ("JORDAN", 4),
    ("KENYA", 0),
    ("MOROCCO", 0),
    ("MOZAMBIQUE", 0),
    ("PERU", 1),
    ("CHINA", 2),
    ("ROMANIA", 3),
    ("SAUDI ARABIA", 4),
    ("VIETNAM", 2),
    ("RUSSIA", 3),
    ("UNITED KINGDOM", 3),
    ("UNITED STATES", 1),
];
const REGIONS: [&str; 5] = ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"];

/// The qualification (validation) parameters of spec 2.4.x, as qgen -d prints them.
pub fn validation_params(q: u8) -> Vec<String> {
    let v: &[&str] = match q {
        1 => &["90"],
        2 => &["15", "BRASS", "EUROPE"],
        3 => &["BUILDING", "1995-03-15"],
        4 => &["1993-07-01"],
        5 => &["ASIA", "1994-01-01"],
        6 => &["1994-01-01", "0.06", "24", "0.05", "0.07"],
        7 => &["FRANCE", "GERMANY"],
        8 => &["BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"],
        9 => &["green"],
        10 => &["1993-10-01"],
        11 => &["GERMANY", "0.0001"],
        12 => &["MAIL", "SHIP", "1994-01-01"],
        13 => &["special", "requests"],
        14 => &["1995-09-01"],
        15 => &["1996-01-01"],
        16 => &[
            "Brand#45",
            "MEDIUM POLISHED",
            "49",
            "14",
            "23",
            "45",
            "19",
            "3",
            "36",
            "9",
        ],
        17 => &["Brand#23", "MED BOX"],
        18 => &["300"],
        19 => &["Brand#12", "Brand#23", "Brand#34", "1", "10", "20"],
        20 => &["forest", "1994-01-01", "CANADA"],
        21 => &["SAUDI ARABIA"],
        22 => &["13", "31", "23", "29", "30", "18", "17"],
        _ => &[],
    };
    v.iter().map(|s| s.to_string()).collect()
}

fn pick<'a>(rng: &mut ChaCha8Rng, items: &[&'a str]) -> &'a str {
    items[rng.random_range(0..items.len())]
}

/// The first of a month `index` months after January 1993.
fn month(index: i64) -> String {
    format!("{}-{:02}-01", 1993 + index / 12, index % 12 + 1)
}

fn year_start(rng: &mut ChaCha8Rng) -> String {
    format!("{}-01-01", rng.random_range(1993..=1997))
}

/// `n` distinct values from `lo..=hi`.
fn distinct(rng: &mut ChaCha8Rng, n: usize, lo: i64, hi: i64) -> Vec<String> {
    let mut out: Vec<i64> = Vec::new();
    while out.len() < n {
        let v = rng.random_range(lo..=hi);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out.iter().map(|v| v.to_string()).collect()
}

fn brand(rng: &mut ChaCha8Rng) -> String {
    format!(
        "Brand#{}{}",
        rng.random_range(1..=5),
        rng.random_range(1..=5)
    )
}

/// qgen's random substitution parameters for query `q` (spec 2.4.x rules), drawn from `rng`.
pub fn random_params(q: u8, sf: f64, rng: &mut ChaCha8Rng) -> Vec<String> {
    let d = Distributions::static_default();
    let nation_names: Vec<&str> = NATIONS.iter().map(|n| n.0).collect();
    let s = |v: &str| v.to_string();
    match q {
        1 => vec![rng.random_range(60..=120).to_string()],
        2 => vec![
            rng.random_range(1..=50).to_string(),
            s(pick(rng, &["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"])),
            s(pick(rng, &REGIONS)),
        ],
        3 => vec![
            s(pick(rng, d.market_segments().get_values())),
            format!("1995-03-{:02}", rng.random_range(1..=31)),
        ],
        4 => vec![month(rng.random_range(0..58))],
        5 => vec![s(pick(rng, &REGIONS)), year_start(rng)],
        6 => {
            // :4 and :5 are DISCOUNT - 0.01 and DISCOUNT + 0.01, written as decimals here: in
            // binary floating point (SQLite's REAL) 0.06 + 0.01 is not 0.07.
            let d = rng.random_range(2..=9);
            vec![
                year_start(rng),
                format!("0.0{d}"),
                rng.random_range(24..=25).to_string(),
                format!("0.0{}", d - 1),
                format!("0.{:02}", d + 1),
            ]
        }
        7 => {
            let n = distinct(rng, 2, 0, 24);
            n.iter()
                .map(|i| s(NATIONS[i.parse::<usize>().unwrap()].0))
                .collect()
        }
        8 => {
            let (nation, region) = NATIONS[rng.random_range(0..25)];
            vec![
                s(nation),
                s(REGIONS[region]),
                s(pick(rng, d.part_types().get_values())),
            ]
        }
        9 => vec![s(pick(rng, d.part_colors().get_values()))],
        10 => vec![month(rng.random_range(1..=24))],
        11 => vec![s(pick(rng, &nation_names)), format!("{:.10}", 0.0001 / sf)],
        12 => {
            let modes = d.ship_modes().get_values();
            let i = distinct(rng, 2, 0, modes.len() as i64 - 1);
            let mut v: Vec<String> = i
                .iter()
                .map(|i| s(modes[i.parse::<usize>().unwrap()]))
                .collect();
            v.push(year_start(rng));
            v
        }
        13 => vec![
            s(pick(rng, &["special", "pending", "unusual", "express"])),
            s(pick(rng, &["packages", "requests", "accounts", "deposits"])),
        ],
        14 => vec![month(rng.random_range(0..60))],
        15 => vec![month(rng.random_range(0..58))],
        16 => {
            let ty = pick(rng, d.part_types().get_values());
            let two: Vec<&str> = ty.split(' ').take(2).collect();
            let mut v = vec![brand(rng), two.join(" ")];
            v.extend(distinct(rng, 8, 1, 50));
            v
        }
        17 => vec![brand(rng), s(pick(rng, d.part_containers().get_values()))],
        18 => vec![rng.random_range(312..=315).to_string()],
        19 => vec![
            brand(rng),
            brand(rng),
            brand(rng),
            rng.random_range(1..=10).to_string(),
            rng.random_range(10..=20).to_string(),
            rng.random_range(20..=30).to_string(),
        ],
        20 => vec![
            s(pick(rng, d.part_colors().get_values())),
            year_start(rng),
            s(pick(rng, &nation_names)),
        ],
        21 => vec![s(pick(rng, &nation_names))],
        22 => distinct(rng, 7, 10, 34),
        _ => Vec::new(),
    }
}

/// `1995-03-15` shifted by `+3 month`, `-90 day`, `+1 year`.
pub fn shift_date(date: &str, amount: i64, unit: &str) -> Result<String> {
    crate::results::time::shift_date(date, amount, unit).map_err(anyhow::Error::msg)
}

// Actian Zen's SQL is written with ODBC's escape sequences, which its driver (as every ODBC
// driver) translates; hakari reaches Zen only through ODBC.
fn date_literal(date: &str, dialect: Dialect) -> String {
    match dialect {
        Dialect::Sqlite => format!("'{date}'"),
        Dialect::Zen => format!("{{d '{date}'}}"),
        _ => format!("DATE '{date}'"),
    }
}

fn year_of(column: &str, dialect: Dialect) -> String {
    match dialect {
        Dialect::Sqlite => format!("CAST(strftime('%Y', {column}) AS INTEGER)"),
        Dialect::Zen => format!("{{fn YEAR({column})}}"),
        _ => format!("extract(year from {column})"),
    }
}

fn substring(column: &str, start: &str, length: &str, dialect: Dialect) -> String {
    match dialect {
        Dialect::Zen => format!("{{fn SUBSTRING({column}, {start}, {length})}}"),
        _ => format!("substr({column}, {start}, {length})"),
    }
}

/// Expands `{date ...}`, `{year ...}`, `{substr ...}`, `{limit ...}` and `{stream}`.
fn expand_macros(text: &str, dialect: Dialect, stream: usize) -> Result<String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find('}')
            .map(|e| start + e)
            .context("unclosed { in a query template")?;
        let inner = &rest[start + 1..end];
        let words: Vec<&str> = inner.split_whitespace().collect();
        match words.as_slice() {
            ["stream"] => out.push_str(&stream.to_string()),
            ["year", column] => out.push_str(&year_of(column, dialect)),
            ["date", date] => out.push_str(&date_literal(date, dialect)),
            ["substr", column, start, length] => {
                out.push_str(&substring(column, start, length, dialect))
            }
            ["limit", count] => out.push_str(&crate::workload::sql::limit(dialect, count)),
            ["date", date, amount, unit] => {
                let n: i64 = amount
                    .trim_start_matches('+')
                    .parse()
                    .with_context(|| format!("bad date shift '{amount}'"))?;
                out.push_str(&date_literal(&shift_date(date, n, unit)?, dialect));
            }
            _ => bail!("unknown template macro {{{inner}}}"),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Query `q`'s statements for a dialect with its parameters substituted.
pub fn render(q: u8, params: &[String], dialect: Dialect, stream: usize) -> Result<Vec<String>> {
    let mut text: String = TEMPLATES[(q - 1) as usize]
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .collect::<Vec<_>>()
        .join("\n");
    // Highest first, so :10 is not read as :1 followed by 0.
    for (i, value) in params.iter().enumerate().rev() {
        text = text.replace(&format!(":{}", i + 1), value);
    }
    if text
        .match_indices(':')
        .any(|(pos, _)| text[pos + 1..].starts_with(|c: char| c.is_ascii_digit()))
    {
        bail!("query {q} has a parameter left without a value");
    }
    let expanded = expand_macros(&text, dialect, stream)?;
    Ok(crate::workload::sql::statements(&expanded))
}

/// Runs a rendered query (query 15: create view, select, drop view) and returns the rows of its
/// SELECT, fetched in full. Each statement commits on its own: one that loses a lock conflict to
/// a refresh function (page locks, as Berkeley DB's SQL takes) is run again alone, counted in
/// `retries`.
pub fn run(
    conn: &mut dyn SqlConnection,
    statements: &[String],
    retries: &mut u64,
) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    for s in statements {
        let head = s.trim_start().get(..6).unwrap_or("").to_ascii_lowercase();
        if head == "select" {
            rows = retry_conflicts(retries, || conn.query(s))?;
        } else {
            retry_conflicts(retries, || conn.execute(s))?;
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn dates_shift_by_days_months_and_years() {
        assert_eq!(shift_date("1998-12-01", -90, "day").unwrap(), "1998-09-02");
        assert_eq!(shift_date("1995-03-15", 3, "month").unwrap(), "1995-06-15");
        assert_eq!(shift_date("1997-10-01", 3, "month").unwrap(), "1998-01-01");
        assert_eq!(shift_date("1994-01-01", 1, "year").unwrap(), "1995-01-01");
        assert_eq!(shift_date("1996-02-28", 1, "day").unwrap(), "1996-02-29");
    }

    #[test]
    fn every_template_renders_in_every_dialect() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for dialect in Dialect::ALL {
            for q in 1..=22u8 {
                for params in [validation_params(q), random_params(q, 1.0, &mut rng)] {
                    let s = render(q, &params, dialect, 3).unwrap();
                    let text = s.join(";");
                    // Zen's SQL holds ODBC escapes ({d '..'}, {fn ..}), never a macro.
                    let macros = ["{date", "{year", "{substr", "{limit", "{stream"];
                    assert!(!macros.iter().any(|m| text.contains(m)), "Q{q}: {text}");
                    assert_eq!(s.len(), if q == 15 { 3 } else { 1 }, "Q{q}");
                }
            }
        }
        let q1 = render(1, &validation_params(1), Dialect::Postgres, 0).unwrap();
        assert!(
            q1[0].contains("l_shipdate <= DATE '1998-09-02'"),
            "{}",
            q1[0]
        );
        let q2 = render(2, &validation_params(2), Dialect::Oracle, 0).unwrap();
        assert!(q2[0].ends_with("fetch first 100 rows only"), "{}", q2[0]);
        let q7 = render(7, &validation_params(7), Dialect::Zen, 0).unwrap();
        assert!(q7[0].contains("{fn YEAR(l_shipdate)}"), "{}", q7[0]);
        assert!(q7[0].contains("{d '1995-01-01'}"), "{}", q7[0]);
        let q15 = render(15, &validation_params(15), Dialect::Sqlite, 4).unwrap();
        assert!(q15[0].starts_with("create view revenue4"));
        assert!(q15[0].contains("'1996-04-01'"));
        let q16 = render(16, &validation_params(16), Dialect::Mysql, 0).unwrap();
        assert!(
            q16[0].contains("(49, 14, 23, 45, 19, 3, 36, 9)"),
            "{}",
            q16[0]
        );
    }

    #[test]
    fn random_params_follow_the_rules() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..200 {
            let q1: i64 = random_params(1, 1.0, &mut rng)[0].parse().unwrap();
            assert!((60..=120).contains(&q1));
            let q4 = &random_params(4, 1.0, &mut rng)[0];
            assert!(
                q4.as_str() >= "1993-01-01" && q4.as_str() <= "1997-10-01",
                "{q4}"
            );
            let q22 = random_params(22, 1.0, &mut rng);
            let mut d = q22.clone();
            d.sort();
            d.dedup();
            assert_eq!(d.len(), 7);
            let q8 = random_params(8, 1.0, &mut rng);
            let region = NATIONS.iter().find(|n| n.0 == q8[0]).unwrap().1;
            assert_eq!(q8[1], REGIONS[region]);
        }
        assert_eq!(random_params(11, 10.0, &mut rng)[1], "0.0000100000");
    }

    #[test]
    fn permutations_are_permutations() {
        for row in PERMUTATION {
            let mut r = row.to_vec();
            r.sort();
            assert_eq!(r, (1..=22).collect::<Vec<u8>>());
        }
        assert_eq!(order(0)[0], 14);
        assert_eq!(order(41), order(0));
    }
}
