//! Money kept exact (§1.3): DECIMAL where the engine has an exact decimal, integer cents (and
//! ten-thousandths for rates) where it has none (SQLite, Berkeley DB SQL). hakari holds every
//! amount as an integer count of its smallest unit and converts at the edges: to the column's
//! form on the way in, back to the integer on the way out.

use crate::engine::sql::{Dialect, SqlValue};
use anyhow::{bail, Result};

/// Whether `dialect` keeps money as integers of its smallest unit.
pub fn in_units(dialect: Dialect) -> bool {
    matches!(dialect, Dialect::Sqlite)
}

/// The column types the schema's placeholders stand for.
pub fn column_types(dialect: Dialect) -> [(&'static str, &'static str); 4] {
    if in_units(dialect) {
        return [
            ("ytd", "BIGINT"),
            ("amount", "INTEGER"),
            ("price", "INTEGER"),
            ("rate", "INTEGER"),
        ];
    }
    [
        ("ytd", "DECIMAL(12,2)"),
        ("amount", "DECIMAL(6,2)"),
        ("price", "DECIMAL(5,2)"),
        ("rate", "DECIMAL(4,4)"),
    ]
}

/// An exact amount: `units` of 10^-`scale` (cents at scale 2, ten-thousandths at 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Money {
    pub units: i64,
    pub scale: u32,
}

impl Money {
    pub fn cents(units: i64) -> Money {
        Money { units, scale: 2 }
    }

    pub fn rate(units: i64) -> Money {
        Money { units, scale: 4 }
    }

    /// As decimal text: `12.50`, `-0.0100`.
    pub fn text(self) -> String {
        let mut s = String::with_capacity(16);
        self.write(&mut s);
        s
    }

    /// Appends the decimal text to `out` (the loaders write millions of amounts).
    pub fn write(self, out: &mut String) {
        crate::workload::load::write_decimal(self.units, self.scale, out);
    }

    /// The value a statement or a loader takes for it on `dialect`.
    pub fn value(self, dialect: Dialect) -> SqlValue {
        match in_units(dialect) {
            true => SqlValue::Int(self.units),
            false => SqlValue::Text(self.text()),
        }
    }

    /// An amount read back from `dialect`, at `scale`: an integer of units, or a decimal as text
    /// or as the nearest double (which rounds back to the exact units at these sizes).
    pub fn read(value: &SqlValue, dialect: Dialect, scale: u32) -> Result<Money> {
        let unit = 10i64.pow(scale);
        let units = match value {
            SqlValue::Int(i) if in_units(dialect) => *i,
            SqlValue::Int(i) => i * unit,
            SqlValue::Float(f) => (f * unit as f64).round() as i64,
            SqlValue::Text(t) => parse(t, scale)?,
            other => bail!("an amount read as {other:?}"),
        };
        Ok(Money { units, scale })
    }
}

/// Decimal text as units of 10^-`scale`, exactly.
fn parse(text: &str, scale: u32) -> Result<i64> {
    let t = text.trim();
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (whole, fraction) = t.split_once('.').unwrap_or((t, ""));
    let mut digits = fraction.trim_end_matches('0').to_string();
    if digits.len() > scale as usize {
        bail!("the amount {text} has more than {scale} decimals");
    }
    while digits.len() < scale as usize {
        digits.push('0');
    }
    let whole: i64 = if whole.is_empty() { 0 } else { whole.parse()? };
    let part: i64 = if digits.is_empty() {
        0
    } else {
        digits.parse()?
    };
    let units = whole * 10i64.pow(scale) + part;
    Ok(if negative { -units } else { units })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_go_in_and_come_back_exactly() {
        assert_eq!(Money::cents(1250).text(), "12.50");
        assert_eq!(Money::cents(-1000).text(), "-10.00");
        assert_eq!(Money::cents(5).text(), "0.05");
        assert_eq!(Money::rate(1234).text(), "0.1234");
        assert_eq!(Money::rate(-100).text(), "-0.0100");
        assert_eq!(Money::cents(30_000_000).text(), "300000.00");
        let pg = Dialect::Postgres;
        let back = |v: SqlValue, scale| Money::read(&v, pg, scale).unwrap().units;
        assert_eq!(back(SqlValue::Text("-10.00".into()), 2), -1000);
        assert_eq!(back(SqlValue::Text("300000".into()), 2), 30_000_000);
        assert_eq!(back(SqlValue::Float(0.1234), 4), 1234);
        assert_eq!(back(SqlValue::Float(99_999_999.99), 2), 9_999_999_999);
        assert_eq!(back(SqlValue::Int(3), 2), 300);
        let sqlite = Dialect::Sqlite;
        assert_eq!(Money::cents(1250).value(sqlite), SqlValue::Int(1250));
        assert_eq!(
            Money::read(&SqlValue::Int(1250), sqlite, 2).unwrap(),
            Money::cents(1250)
        );
        assert!(Money::read(&SqlValue::Text("1.234".into()), pg, 2).is_err());
        assert!(Money::read(&SqlValue::Null, pg, 2).is_err());
    }
}
